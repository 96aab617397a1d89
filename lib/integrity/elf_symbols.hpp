#pragma once
// The symbol names of an ELF shared object (its .symtab and .dynsym), read from the file without
// loading it: how the kernel share finds the CUDA kernels compiled into a candidate's extension.
#include <filesystem>
#include <string>
#include <vector>

namespace kbench {

// Every named symbol of `file` (64-bit little-endian ELF), in table order; duplicates kept.
// Throws std::runtime_error for a file that cannot be read or is not such an ELF file.
std::vector<std::string> elf_symbol_names(const std::filesystem::path& file);

}  // namespace kbench
