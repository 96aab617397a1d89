// The lock dropped around a wrapped Python call (lib/worker/gpu_lock_hooks.cpp), as the worker
// wraps triton.compile and Inductor's AsyncCompile.wait: the worker's real GpuLock
// (KBENCH_GPU_LOCK) against a timer in a thread with its own GpuLock object (flock contends per
// open file, like another worker).
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "catch.hpp"
#include "gpu_lock_contender.hpp"
#include "temp_dir.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/gpu_lock_hooks.hpp"
#include "worker/python_runtime.hpp"

using namespace kbench;
using Mode = GpuLock::Mode;
using namespace std::chrono_literals;
namespace py = pybind11;

namespace {

// The worker's lock file: GpuLock::instance() opens KBENCH_GPU_LOCK once per process, so every
// case of this file contends on the one file it opened.
std::filesystem::path worker_lock_file() {
  static test::TempDir dir;
  static const auto file = [] {
    const auto made = test::lock_with_gate(dir);
    setenv("KBENCH_GPU_LOCK", made.c_str(), 1);
    return made;
  }();
  return file;
}

// The worker's GpuLock, Python started, its drain counted in `drained`.
GpuLock& worker_lock(int& drained) {
  start_python();
  worker_lock_file();
  GpuLock& worker = GpuLock::instance();
  REQUIRE(worker.enabled());
  worker.set_drain([&drained] { ++drained; });
  return worker;
}

}  // namespace

TEST_CASE("a wrapped compile drops the shared lock: a waiting timer times during it, the caller queues behind") {
  int drained = 0;
  const auto file = worker_lock_file();
  GpuLock& worker = worker_lock(drained);

  // A module with a slow, CPU-only `compile` (the GIL is let go while it sleeps).
  py::module_ fake = py::reinterpret_borrow<py::module_>(py::module_::import("types").attr("ModuleType")("fake_triton"));
  py::exec("import time\ndef compile(x, scale=1):\n    time.sleep(0.3)\n    return x * scale\n", fake.attr("__dict__"));
  bool capturing = false;
  drop_lock_during(fake, "compile", [&] { return capturing; });

  worker.hold(Mode::shared);
  GpuLock timer(file);
  std::atomic<bool> timing_now{false}, timed{false};
  std::thread timing = test::time_once(timer, timed, &timing_now, 150ms);
  std::this_thread::sleep_for(100ms);  // the timer waits for the worker's shared hold
  REQUIRE_FALSE(timed);
  const auto start = std::chrono::steady_clock::now();
  const int result = fake.attr("compile")(7, py::arg("scale") = 3).cast<int>();
  CHECK(result == 21);  // arguments and result pass through
  CHECK(timed);          // it timed while the compile ran, and was done before the call returned
  CHECK_FALSE(timing_now);
  CHECK(worker.mode() == Mode::shared);  // taken again, behind the timer
  CHECK(drained == 1);                    // queued GPU work drained before the lock went
  CHECK(lock_drops() == 1);
  CHECK(std::chrono::steady_clock::now() - start < 1s);  // the timer's 150 ms ran inside the 300 ms compile
  worker.hold(Mode::none);  // (had it kept the lock, the timer would still wait on it)
  timing.join();

  // Calls through, keeping the lock as held: at none, while a stream is captured, from another thread.
  CHECK(fake.attr("compile")(2).cast<int>() == 2);
  CHECK(worker.mode() == Mode::none);
  worker.hold(Mode::shared);
  capturing = true;
  CHECK(fake.attr("compile")(2).cast<int>() == 2);
  capturing = false;
  {
    py::gil_scoped_release released;
    std::thread other([&] {
      py::gil_scoped_acquire acquired;
      CHECK(fake.attr("compile")(2).cast<int>() == 2);
    });
    other.join();
  }
  CHECK(worker.mode() == Mode::shared);
  CHECK(lock_drops() == 1);

  // A compile that raises: the exception reaches the caller, the lock is shared again.
  py::exec("def compile(*a, **k):\n    raise ValueError('bad kernel')\n", fake.attr("__dict__"));
  drop_lock_during(fake, "compile", [] { return false; });
  CHECK_THROWS_AS(fake.attr("compile")(), py::error_already_set);
  CHECK(worker.mode() == Mode::shared);
  CHECK(lock_drops() == 2);
  worker.hold(Mode::none);
}

TEST_CASE("a wrapped pool wait drops the shared lock while compile subprocesses work, then calls the original under it") {
  int drained = 0;
  const auto file = worker_lock_file();
  GpuLock& worker = worker_lock(drained);
  const int drops_before = lock_drops();

  // Inductor's shapes: futures wrapping a pool's concurrent.futures.Future, and a class whose
  // wait(self, scope) replaces each future in the generated module's globals by its result. The
  // pool here is a thread that finishes the future after 0.3 s (the GIL let go meanwhile).
  py::module_ fake = py::reinterpret_borrow<py::module_>(py::module_::import("types").attr("ModuleType")("fake_inductor"));
  fake.attr("lock_mode") = py::cpp_function([] { return int(GpuLock::instance().mode()); });
  py::exec(R"(
import concurrent.futures, threading
class Trap:
    def __getattr__(self, name):
        raise AssertionError("a global was asked for " + name)
class CodeCacheFuture:
    def __init__(self, delay):
        self.future = concurrent.futures.Future()
        threading.Timer(delay, lambda: self.future.set_result(42)).start()
    def result(self):
        return self.future.result()
class AsyncCompile:
    def wait(self, scope):
        self.done_at_start = all(v.future.done() for v in scope.values() if isinstance(v, CodeCacheFuture))
        self.mode_inside = lock_mode()
        for k, v in list(scope.items()):
            if isinstance(v, CodeCacheFuture):
                scope[k] = v.result()
)", fake.attr("__dict__"));
  bool capturing = false;
  drop_lock_during_pool_waits(fake.attr("AsyncCompile"), fake.attr("CodeCacheFuture"), [&] { return capturing; });
  py::object compiler = fake.attr("AsyncCompile")();
  auto scope_with_kernel = [&](double delay) {
    py::dict scope;
    scope["triton_poi_fused_add_0"] = fake.attr("CodeCacheFuture")(delay);
    scope["trap"] = fake.attr("Trap")();  // any other global: never asked for attributes
    return scope;
  };

  worker.hold(Mode::shared);
  GpuLock timer(file);
  std::atomic<bool> timed{false};
  std::thread timing = test::time_once(timer, timed, nullptr, 100ms);
  std::this_thread::sleep_for(100ms);  // the timer waits for the worker's shared hold
  REQUIRE_FALSE(timed);
  py::dict scope = scope_with_kernel(0.3);
  compiler.attr("wait")(scope);
  CHECK(timed);  // it timed while the subprocesses compiled
  CHECK(scope["triton_poi_fused_add_0"].cast<int>() == 42);
  CHECK(compiler.attr("done_at_start").cast<bool>());                        // waited for with the lock dropped
  CHECK(compiler.attr("mode_inside").cast<int>() == int(Mode::shared));      // the original ran under the lock
  CHECK(worker.mode() == Mode::shared);
  CHECK(drained == 1);  // queued GPU work drained before the lock went
  CHECK(lock_drops() == drops_before + 1);
  worker.hold(Mode::none);  // (had the wait kept the lock, the timer would still wait on it)
  timing.join();
  worker.hold(Mode::shared);

  // Called through, the lock kept: nothing pending, a stream being captured, at none, another thread.
  py::dict finished = scope_with_kernel(0.0);
  std::this_thread::sleep_for(100ms);
  compiler.attr("wait")(finished);
  capturing = true;
  compiler.attr("wait")(scope_with_kernel(0.05));
  CHECK(compiler.attr("mode_inside").cast<int>() == int(Mode::shared));
  capturing = false;
  {
    py::gil_scoped_release released;
    std::thread other([&] {
      py::gil_scoped_acquire acquired;
      compiler.attr("wait")(scope_with_kernel(0.05));
    });
    other.join();
  }
  worker.hold(Mode::none);
  compiler.attr("wait")(scope_with_kernel(0.05));
  CHECK(compiler.attr("mode_inside").cast<int>() == int(Mode::none));
  CHECK(lock_drops() == drops_before + 1);
  CHECK(drained == 3);  // the releases to none above only
}

TEST_CASE("this torch's Inductor is hooked by feature: a no-op before the lock hooks, wrapped and callable after") {
  start_python();
  worker_lock_file();
  py::object async_compile = py::module_::import("torch._inductor.async_compile");
  py::object cls = async_compile.attr("AsyncCompile");
  const py::object function_type = py::module_::import("types").attr("FunctionType");
  // What install_inductor_wait_hook looks for exists in the torch this was built with.
  REQUIRE(py::isinstance(cls.attr("wait"), function_type));
  REQUIRE(py::hasattr(py::module_::import("torch._inductor.codecache"), "CodeCacheFuture"));
  install_inductor_wait_hook();  // no install_gpu_lock_hooks yet in this process: nothing wrapped
  CHECK(py::isinstance(cls.attr("wait"), function_type));
  install_gpu_lock_hooks(Device{DeviceKind::cuda, 0});  // what a CUDA job's worker does at start
  install_inductor_wait_hook();
  CHECK_FALSE(py::isinstance(cls.attr("wait"), function_type));
  const py::object wrapped = cls.attr("wait");
  install_inductor_wait_hook();  // once: not wrapped twice
  CHECK(py::object(cls.attr("wait")).is(wrapped));
  // Called through (no lock held): the real wait with an empty scope still works.
  const int before = lock_drops();
  CHECK_NOTHROW(cls().attr("wait")(py::dict()));
  CHECK(lock_drops() == before);
}
