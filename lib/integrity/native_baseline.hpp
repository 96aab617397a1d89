#pragma once
// What native code the process held before the candidate's import: the shared objects loaded
// and the torch operator namespaces registered. Anything that appears later, outside the Python
// installation, was brought in by the candidate (a torch.utils.cpp_extension build: load_inline,
// load), since the static policy leaves it no other way to load native code. The call tracer
// uses it to recognise calls into the candidate's extensions and the kernel share to find the
// CUDA kernels they contain (docs/integrity.md, "The candidate's own kernels").
#include <set>
#include <string>
#include <vector>

namespace kbench {

class NativeBaseline {
 public:
  // Needs the GIL: reads the interpreter's install prefixes and torch's operator namespaces.
  static NativeBaseline capture();

  // `path` (as the dynamic loader names it) was loaded after the capture and lies outside the
  // Python installation (prefixes, site-packages: torch's, Triton's, numpy's own libraries).
  [[nodiscard]] bool is_candidate_object(const std::string& path) const;
  // `ns` names a torch operator namespace that did not exist at the capture (TORCH_LIBRARY).
  [[nodiscard]] bool is_candidate_namespace(const std::string& ns) const;
  // The shared objects loaded now that are the candidate's (real paths).
  [[nodiscard]] std::vector<std::string> candidate_objects() const;

  // For tests: a baseline from explicit lists (real paths are compared).
  NativeBaseline(std::set<std::string> objects, std::set<std::string> namespaces,
                 std::vector<std::string> install_dirs);
  // Not captured: nothing counts as the candidate's (no false attribution by default).
  NativeBaseline() = default;

 private:
  std::set<std::string> objects_;       // real paths loaded at the capture
  std::set<std::string> namespaces_;    // operator namespaces at the capture
  std::vector<std::string> install_dirs_;  // real paths, each ending in '/'
  bool captured_ = false;
};

// Every shared object loaded in this process now, by the loader's name (dl_iterate_phdr).
std::vector<std::string> loaded_objects();
// The shared object holding `address` (dladdr), or "" when none does.
std::string object_containing(const void* address);

}  // namespace kbench
