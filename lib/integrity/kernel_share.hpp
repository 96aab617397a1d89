#pragma once
// The share of GPU time a candidate spends in its own kernels, from the torch profiler's kernel
// list for one call (CUDA only): defeats token launches of a custom kernel while torch does the
// real work. Which kernels are the candidate's: integrity/kernel_attribution.hpp.
#include <pybind11/pybind11.h>

#include <optional>

#include "integrity/kernel_attribution.hpp"

namespace kbench {

// Profiles one call of `fn(*args)` after a warmup call; nullopt when no device time was seen.
std::optional<KernelShare> measure_kernel_share(const pybind11::object& fn, const pybind11::tuple& args,
                                                const OwnKernels& own);

}  // namespace kbench
