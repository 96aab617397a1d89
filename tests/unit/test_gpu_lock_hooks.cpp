// The lock dropped around a wrapped Python call (lib/worker/gpu_lock_hooks.cpp), as the worker
// wraps triton.compile: the worker's real GpuLock (KBENCH_GPU_LOCK) against a timer in a thread
// with its own GpuLock object (flock contends per open file, like another worker).
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

TEST_CASE("a wrapped compile drops the shared lock: a waiting timer times during it, the caller queues behind") {
  start_python();
  test::TempDir dir;
  const auto file = test::lock_with_gate(dir);
  setenv("KBENCH_GPU_LOCK", file.c_str(), 1);
  GpuLock& worker = GpuLock::instance();
  REQUIRE(worker.enabled());
  int drained = 0;
  worker.set_drain([&] { ++drained; });

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
  unsetenv("KBENCH_GPU_LOCK");
}
