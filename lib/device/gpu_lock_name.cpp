#include "device/gpu_lock_name.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {

std::filesystem::path gpu_lock_file(const std::filesystem::path& lock_dir, const Device& device) {
  if (!device.is_cuda() || !device.index)
    throw std::logic_error("gpu_lock_file: " + to_string(device) + " is not one CUDA device");
  const int index = *device.index;
  std::string physical = std::to_string(index);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::vector<std::string> entries(1);
    for (const char* c = visible; *c; ++c) {
      if (*c == ',') entries.emplace_back();
      else entries.back() += *c;
    }
    if (index < int(entries.size()) && !entries[index].empty()) physical = entries[index];
  }
  for (char& c : physical)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
  return lock_dir / fmt::format("kbench-gpu-{}.lock", physical);
}

std::filesystem::path gpu_lock_gate_file(const std::filesystem::path& lock_file) {
  return lock_file.string() + ".gate";
}

}  // namespace kbench
