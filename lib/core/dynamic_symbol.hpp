#pragma once
// Looking up functions in a library loaded with dlopen (the CUDA driver, NVML), so kbench needs
// neither at link time.
#include <dlfcn.h>

namespace kbench {

// Stores the function `name` (or `fallback`, for renamed symbols) of `library` in `out`.
template <typename F>
bool resolve_symbol(void* library, F& out, const char* name, const char* fallback = nullptr) {
  void* symbol = dlsym(library, name);
  if (!symbol && fallback) symbol = dlsym(library, fallback);
  out = reinterpret_cast<F>(symbol);
  return symbol != nullptr;
}

}  // namespace kbench
