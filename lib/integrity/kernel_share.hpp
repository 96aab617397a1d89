#pragma once
// The share of GPU time a candidate spends in its own kernels, from the torch profiler's kernel
// list for one call (CUDA only): defeats token launches of a custom kernel while torch does the
// real work. Which kernels are the candidate's: integrity/kernel_attribution.hpp.
#include <pybind11/pybind11.h>

#include <optional>

#include "integrity/kernel_attribution.hpp"

namespace kbench {

// The profiler's first session in a process initialises CUPTI: about 5.5 s on the H200 machine
// (2026-12-01), paid inside the evaluation after the candidate's import unless this empty
// session ran first. Called at a worker's start, before a pre-started worker's hold (so off the
// critical path), in the process that will profile; `device_index` is the job's GPU.
void warm_up_kernel_profiler(int device_index);

// Profiles one call of `fn(*args)` after a warmup call; nullopt when no device time was seen.
std::optional<KernelShare> measure_kernel_share(const pybind11::object& fn, const pybind11::tuple& args,
                                                const OwnKernels& own);

}  // namespace kbench
