#include "worker/kernel_share.hpp"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace kbench {
namespace {

constexpr const char* kProfileCode = R"(
import torch
from torch.profiler import profile, ProfilerActivity

def measure(fn, args, names):
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
            rows.append((e.key, float(us), any(n and n in e.key for n in names)))
    rows.sort(key=lambda r: -r[1])
    return rows
)";

}  // namespace

std::optional<KernelShare> measure_kernel_share(const py::object& fn, const py::tuple& args,
                                                const std::vector<std::string>& custom_names) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kProfileCode, scope);
  py::list rows = scope["measure"](fn, args, py::cast(custom_names));
  KernelShare result;
  result.kernels = nlohmann::json::array();
  for (auto row : rows) {
    py::tuple r = py::reinterpret_borrow<py::tuple>(row);
    const auto name = r[0].cast<std::string>();
    const double us = r[1].cast<double>();
    const bool custom = r[2].cast<bool>();
    result.total_us += us;
    if (custom) result.custom_us += us;
    if (result.kernels.size() < 8) result.kernels.push_back({{"name", name.substr(0, 120)}, {"us", us}, {"custom", custom}});
  }
  if (!(result.total_us > 0)) return std::nullopt;
  result.share = result.custom_us / result.total_us;
  return result;
}

}  // namespace kbench
