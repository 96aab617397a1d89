#pragma once
// The share of GPU time a candidate spends in its own kernels, from the torch profiler's kernel
// list for one call (CUDA only): defeats token launches of a custom kernel while torch does the
// real work. Names match by substring (Triton appends specialisation suffixes).
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

struct KernelShare {
  double share = 0;          // custom / total device time
  double custom_us = 0;
  double total_us = 0;
  nlohmann::json kernels;    // the top kernels: [{name, us, custom}]
};

// Profiles one call of `fn(*args)` after a warmup call; nullopt when no device time was seen.
std::optional<KernelShare> measure_kernel_share(const pybind11::object& fn, const pybind11::tuple& args,
                                                const std::vector<std::string>& custom_names);

}  // namespace kbench
