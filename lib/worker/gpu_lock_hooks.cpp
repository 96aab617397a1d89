#include "worker/gpu_lock_hooks.hpp"

#include <pybind11/pybind11.h>

#include <thread>

#include "worker/gpu_lock.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

int g_lock_drops = 0;

}  // namespace

void drop_lock_during(py::module_ module, const char* name, std::function<bool()> capturing) {
  py::object original = module.attr(name);
  const auto installer = std::this_thread::get_id();
  module.attr(name) = py::cpp_function([original, capturing, installer](py::args args, py::kwargs kwargs) {
    auto& lock = GpuLock::instance();
    if (lock.mode() != GpuLock::Mode::shared || std::this_thread::get_id() != installer || capturing())
      return original(*args, **kwargs);
    ++g_lock_drops;
    const GpuLockScope cpu_only(GpuLock::Mode::none);  // shared again after, through the gate
    return original(*args, **kwargs);
  });
}

int lock_drops() { return g_lock_drops; }

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
  const auto capturing = [torch_cuda] {
    try {
      return bool(py::bool_(torch_cuda.attr("is_current_stream_capturing")()));
    } catch (const py::error_already_set&) {
      return true;  // unknown: keep the lock as held
    }
  };
  try {
    // triton.compile and triton.compiler.compile are the same function; callers look up either
    // name at call time (runtime/jit.py, torch/_inductor/runtime/triton_heuristics.py).
    drop_lock_during(py::module_::import("triton.compiler"), "compile", capturing);
    drop_lock_during(py::module_::import("triton"), "compile", capturing);
  } catch (const py::error_already_set&) {
    // No Triton: nothing compiles through it.
  }
}

void report_gpu_lock(nlohmann::json& protocol) {
  const auto& lock = GpuLock::instance();
  if (!lock.enabled()) return;
  protocol["gpu_lock_wait_s"] = lock.wait_s();
  protocol["gpu_lock_yields"] = lock.yields();
  protocol["gpu_lock_compile_releases"] = g_lock_drops;
}

}  // namespace kbench
