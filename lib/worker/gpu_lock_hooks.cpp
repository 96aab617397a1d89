#include "worker/gpu_lock_hooks.hpp"

#include <pybind11/pybind11.h>

#include <thread>

#include "worker/gpu_lock.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

int g_lock_drops = 0;
// Set by install_gpu_lock_hooks for a CUDA job with a lock: whether a stream is being captured.
std::function<bool()> g_capturing;
bool g_inductor_hooked = false;

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

void drop_lock_during_pool_waits(py::object cls, py::object future_class, std::function<bool()> capturing) {
  py::object original = cls.attr("wait");
  py::module_ futures = py::module_::import("concurrent.futures");
  const auto installer = std::this_thread::get_id();
  auto wrapper = [original, future_class, futures, capturing, installer](py::args args, py::kwargs kwargs) {
    auto& lock = GpuLock::instance();
    if (lock.mode() == GpuLock::Mode::shared && std::this_thread::get_id() == installer && args.size() >= 2 &&
        py::isinstance<py::dict>(args[1]) && !capturing()) {
      py::list pending;
      const py::object pool_future = futures.attr("Future");
      for (const auto item : py::reinterpret_borrow<py::dict>(args[1])) {
        // isinstance first: arbitrary globals are never asked for attributes.
        if (!py::isinstance(item.second, future_class) || !py::hasattr(item.second, "future")) continue;
        py::object future = item.second.attr("future");
        if (py::isinstance(future, pool_future) && !py::bool_(future.attr("done")())) pending.append(future);
      }
      if (!pending.empty()) {
        ++g_lock_drops;
        const GpuLockScope cpu_only(GpuLock::Mode::none);  // drained first; shared again after, through the gate
        futures.attr("wait")(pending);
      }
    }
    return original(*args, **kwargs);
  };
  cls.attr("wait") = py::cpp_function(wrapper, py::name("wait"), py::is_method(cls));
}

void install_inductor_wait_hook() {
  if (!g_capturing || g_inductor_hooked) return;
  g_inductor_hooked = true;
  try {
    py::object async_compile = py::module_::import("torch._inductor.async_compile");
    py::object codecache = py::module_::import("torch._inductor.codecache");
    if (!py::hasattr(async_compile, "AsyncCompile") || !py::hasattr(codecache, "CodeCacheFuture")) return;
    py::object cls = async_compile.attr("AsyncCompile");
    if (!py::hasattr(cls, "wait")) return;
    drop_lock_during_pool_waits(cls, codecache.attr("CodeCacheFuture"), g_capturing);
  } catch (const py::error_already_set&) {
    // No Inductor here (or one laid out otherwise): its waits keep the lock as held.
  }
}

int lock_drops() { return g_lock_drops; }

void install_gpu_lock_drain(const Device& device) {
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
}

void install_gpu_lock_hooks(const Device& device) {
  if (!GpuLock::instance().enabled() || !device.is_cuda()) return;
  install_gpu_lock_drain(device);
  py::object torch_cuda = py::module_::import("torch").attr("cuda");
  const auto capturing = [torch_cuda] {
    try {
      return bool(py::bool_(torch_cuda.attr("is_current_stream_capturing")()));
    } catch (const py::error_already_set&) {
      return true;  // unknown: keep the lock as held
    }
  };
  g_capturing = capturing;
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
  protocol["gpu_lock_held_shared_s"] = lock.held_shared_s();
  protocol["gpu_lock_held_exclusive_s"] = lock.held_exclusive_s();
  protocol["gpu_lock_longest_shared_s"] = lock.longest_shared_s();
}

}  // namespace kbench
