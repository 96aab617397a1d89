#include "integrity/kernel_share.hpp"

#include <pybind11/eval.h>

namespace py = pybind11;

namespace kbench {
namespace {

constexpr const char* kProfileCode = R"(
import torch
from torch.profiler import profile, ProfilerActivity

def measure(fn, args):
    fn(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        us = getattr(e, 'self_device_time_total', None)
        if us is None:
            us = getattr(e, 'self_cuda_time_total', 0)
        if us > 0:
            rows.append((e.key, float(us)))
    return rows
)";

}  // namespace

std::optional<KernelShare> measure_kernel_share(const py::object& fn, const py::tuple& args,
                                                const OwnKernels& own) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kProfileCode, scope);
  py::list rows = scope["measure"](fn, args);
  std::vector<ProfiledKernel> profiled;
  for (auto row : rows) {
    py::tuple r = py::reinterpret_borrow<py::tuple>(row);
    profiled.push_back({r[0].cast<std::string>(), r[1].cast<double>()});
  }
  KernelShare result = attribute_kernel_time(profiled, own);
  if (!(result.total_us > 0)) return std::nullopt;
  return result;
}

}  // namespace kbench
