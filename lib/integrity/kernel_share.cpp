#include "integrity/kernel_share.hpp"

#include <pybind11/eval.h>

namespace py = pybind11;

namespace kbench {
namespace {

// One profiled call, CPU and CUDA activity: each kernel comes back with its device time and
// whether it ran inside one of torch's GEMM/convolution operators (the CPU event tree links the
// launch to the operator that issued it). User annotations (record_function) are not operators:
// a candidate cannot delegate its own work by naming a scope "aten::mm". einsum and tensordot
// are not listed (they can be elementwise); their contractions reach aten::bmm, which is.
constexpr const char* kProfileCode = R"(
import torch
from torch.profiler import profile, ProfilerActivity

DELEGATED_OPS = frozenset(f'aten::{name}' for name in (
    'mm', 'addmm', 'bmm', 'baddbmm', 'addbmm', 'matmul', 'linear', 'mv', 'addmv', 'dot', 'vdot',
    '_addmm_activation', '_scaled_mm',
    'convolution', '_convolution', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d',
    'conv_transpose2d', 'conv_transpose3d', 'cudnn_convolution', 'cudnn_convolution_transpose',
    'cudnn_convolution_relu', 'cudnn_convolution_add_relu'))

def delegated(event):
    while event is not None:
        if event.name in DELEGATED_OPS and not getattr(event, 'is_user_annotation', False):
            return True
        event = event.cpu_parent
    return False

def measure(fn, args):
    fn(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    # Device time per kernel name from the device events themselves, so a kernel whose launch
    # the profiler did not link to a CPU event still counts (undelegated). Not key_averages():
    # with CPU activity its rows would also carry the kernels' time under the CPU launch events.
    cpu = torch.autograd.DeviceType.CPU
    events = prof.events()
    totals, inside = {}, {}
    for e in events:
        if e.device_type != cpu:
            us = float(e.time_range.elapsed_us())
            if us > 0:
                totals[e.name] = totals.get(e.name, 0.0) + us
        elif e.kernels and delegated(e):
            for k in e.kernels:
                inside[k.name] = inside.get(k.name, 0.0) + float(k.duration)
    rows = []
    for name, us in totals.items():
        part = min(inside.get(name, 0.0), us)
        if us - part > 0:
            rows.append((name, us - part, False))
        if part > 0:
            rows.append((name, part, True))
    return rows
)";

}  // namespace

void warm_up_kernel_profiler(int device_index) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  scope["device_index"] = device_index;
  py::exec(R"(
import torch
from torch.profiler import profile, ProfilerActivity
torch.cuda.set_device(device_index)
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
    torch.cuda.synchronize()
)", scope);
}

std::optional<KernelShare> measure_kernel_share(const py::object& fn, const py::tuple& args,
                                                const OwnKernels& own) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kProfileCode, scope);
  py::list rows = scope["measure"](fn, args);
  std::vector<ProfiledKernel> profiled;
  for (auto row : rows) {
    py::tuple r = py::reinterpret_borrow<py::tuple>(row);
    profiled.push_back({r[0].cast<std::string>(), r[1].cast<double>(), r[2].cast<bool>()});
  }
  KernelShare result = attribute_kernel_time(profiled, own);
  if (!(result.total_us > 0)) return std::nullopt;
  return result;
}

}  // namespace kbench
