#pragma once
// Which profiled GPU kernels are the candidate's own, and their share of the device time: a pure
// function of the profiler's kernel list, so it is tested on the CPU with recorded lists.
// Own kernels are named exactly, never matched as text (docs/integrity.md, "The candidate's own
// kernels"): CUDA kernels by the __global__ functions compiled into the candidate's extensions,
// Triton kernels by the candidate's JIT functions.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

struct OwnKernels {
  std::set<std::string> cuda;    // demangled, as the profiler names them
  std::set<std::string> triton;  // JIT function names (Triton names a kernel after its function)
};

struct ProfiledKernel {
  std::string name;  // the profiler's (kineto's) name: demangled for C++ kernels
  double us = 0;     // device time in one call
  // Launched inside one of torch's GEMM or convolution operators (aten::mm, linear, convolution,
  // ...; kernel_share.cpp), wherever the operator was called from: library work the candidate
  // delegated to cuBLAS/cuDNN through torch, neither its own nor counted against it.
  bool delegated = false;
};

struct KernelShare {
  double share = 0;          // own / (total - delegated) device time
  double custom_us = 0;
  double total_us = 0;
  double delegated_us = 0;   // in torch's GEMM/convolution operators
  nlohmann::json kernels;    // the top kernels: [{name, us, custom, delegated}]
};

// The name the profiler shows for a mangled symbol (kineto demangles with the same ABI call);
// names that are not mangled come back unchanged.
std::string demangle(const std::string& symbol);

// The CUDA kernels compiled into an object, from its symbol names: nvcc emits a host stub for
// every __global__ function, `__device_stub_<kernel's mangled name>`, whose name (or whose static
// locals' names) survive in the symbol table even when the stub is inlined. Demangled.
std::set<std::string> cuda_kernels_in_symbols(const std::vector<std::string>& symbols);

[[nodiscard]] bool is_own_kernel(const std::string& profiled_name, const OwnKernels& own);

// Sums device time per kernel; `kernels` lists the 8 largest. The share is of the device time
// that was not delegated (docs/integrity.md, "Library calls"); 0 when nothing else ran.
KernelShare attribute_kernel_time(const std::vector<ProfiledKernel>& profiled, const OwnKernels& own);

}  // namespace kbench
