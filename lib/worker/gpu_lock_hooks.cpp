#include "worker/gpu_lock_hooks.hpp"

#include <pybind11/pybind11.h>

#include <thread>

#include "worker/gpu_lock.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

int g_compile_releases = 0;

// Wraps `module.compile` (kept as `original`): the lock dropped while it runs, see the header.
void wrap_compile(py::module_ module, py::object torch_cuda, std::thread::id worker_thread) {
  py::object original = module.attr("compile");
  module.attr("compile") = py::cpp_function([original, torch_cuda, worker_thread](py::args args, py::kwargs kwargs) {
    auto& lock = GpuLock::instance();
    if (lock.mode() != GpuLock::Mode::shared || std::this_thread::get_id() != worker_thread ||
        py::bool_(torch_cuda.attr("is_current_stream_capturing")()))
      return original(*args, **kwargs);
    ++g_compile_releases;
    const GpuLockScope cpu_only(GpuLock::Mode::none);  // shared again after, through the gate
    return original(*args, **kwargs);
  });
}

}  // namespace

void install_gpu_lock_hooks(const Device& device) {
  auto& lock = GpuLock::instance();
  if (!lock.enabled() || !device.is_cuda()) return;
  py::object torch_cuda = py::module_::import("torch").attr("cuda");
  const int index = device.index.value_or(0);
  lock.set_drain([torch_cuda, index] {
    try {
      if (py::bool_(torch_cuda.attr("is_initialized")())) torch_cuda.attr("synchronize")(index);
    } catch (const py::error_already_set&) {
      // A sticky CUDA error (the candidate's fault, reported where it surfaced): nothing of this
      // context runs any more, so there is nothing left to wait for.
    }
  });
  try {
    const auto worker_thread = std::this_thread::get_id();
    // triton.compile and triton.compiler.compile are the same function; callers look up either
    // name at call time (runtime/jit.py, torch/_inductor/runtime/triton_heuristics.py).
    wrap_compile(py::module_::import("triton.compiler"), torch_cuda, worker_thread);
    wrap_compile(py::module_::import("triton"), torch_cuda, worker_thread);
  } catch (const py::error_already_set&) {
    // No Triton: nothing compiles through it.
  }
}

void report_gpu_lock(nlohmann::json& protocol) {
  const auto& lock = GpuLock::instance();
  if (!lock.enabled()) return;
  protocol["gpu_lock_wait_s"] = lock.wait_s();
  protocol["gpu_lock_yields"] = lock.yields();
  protocol["gpu_lock_compile_releases"] = g_compile_releases;
}

}  // namespace kbench
