#include "integrity/kernel_attribution.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

namespace kbench {
namespace {

constexpr std::string_view kStub = "__device_stub_";

// The decimal number that ends just before `end` in `text` (0 when there is none).
std::size_t decimal_before(const std::string& text, std::size_t end) {
  if (end == std::string::npos || end > text.size()) return 0;
  std::size_t begin = end;
  while (begin > 0 && end - begin < 6 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  return begin == end ? 0 : std::stoul(text.substr(begin, end - begin));
}

}  // namespace

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && text ? std::string(text.get()) : symbol;
}

std::set<std::string> cuda_kernels_in_symbols(const std::vector<std::string>& symbols) {
  const std::set<std::string> all(symbols.begin(), symbols.end());
  std::set<std::string> kernels;
  for (const auto& symbol : all) {
    // In a mangled name the stub is a source name `<length>__device_stub__Z...`; the length
    // delimits the kernel's own mangled name, which follows the prefix's first underscore.
    for (auto at = symbol.find(kStub); at != std::string::npos; at = symbol.find(kStub, at + 1)) {
      const auto length = decimal_before(symbol, at);
      if (length <= kStub.size() || at + length > symbol.size()) continue;
      const std::string mangled = symbol.substr(at + kStub.size(), length - kStub.size());
      if (mangled.rfind("_Z", 0) != 0) continue;
      kernels.insert(demangle(mangled));
      // An extern "C" kernel's stub is still mangled (`_Z14plain_c_kernelPf`), but the device
      // name, and so the profiler's, is its plain name, which is also its host symbol.
      const auto name_length = decimal_before(mangled, mangled.find_first_not_of("0123456789", 2));
      const std::string plain = mangled.substr(mangled.find_first_not_of("0123456789", 2), name_length);
      if (name_length > 0 && all.count(plain)) kernels.insert(plain);
    }
  }
  return kernels;
}

bool is_own_kernel(const std::string& profiled_name, const OwnKernels& own) {
  return own.cuda.count(profiled_name) > 0 || own.triton.count(profiled_name) > 0;
}

KernelShare attribute_kernel_time(const std::vector<ProfiledKernel>& profiled, const OwnKernels& own) {
  std::vector<ProfiledKernel> sorted;
  for (const auto& k : profiled)
    if (k.us > 0) sorted.push_back(k);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.us > b.us; });
  KernelShare result;
  result.kernels = nlohmann::json::array();
  for (const auto& k : sorted) {
    // An own kernel is never delegated: a torch operator runs torch's kernels, not the file's.
    const bool custom = is_own_kernel(k.name, own);
    const bool delegated = k.delegated && !custom;
    result.total_us += k.us;
    if (custom) result.custom_us += k.us;
    if (delegated) result.delegated_us += k.us;
    if (result.kernels.size() < 8)
      result.kernels.push_back(
          {{"name", k.name.substr(0, 120)}, {"us", k.us}, {"custom", custom}, {"delegated", delegated}});
  }
  const double counted_us = result.total_us - result.delegated_us;
  result.share = counted_us > 0 ? result.custom_us / counted_us : 0;
  return result;
}

}  // namespace kbench
