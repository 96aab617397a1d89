#pragma once
// What the GpuLock tests contend with (test_gpu_lock.cpp, test_gpu_lock_hooks.cpp): a lock file
// with its gate, as the controller makes them, and a timer in a thread of its own holding its
// own GpuLock object (flock contends per open file, like another worker).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "device/gpu_lock_name.hpp"
#include "temp_dir.hpp"
#include "worker/gpu_lock.hpp"

namespace kbench::test {

inline std::filesystem::path lock_with_gate(const TempDir& dir) {
  const auto file = dir.path() / "kbench-gpu-0.lock";
  std::ofstream(file).close();
  std::ofstream(gpu_lock_gate_file(file)).close();  // as the controller does
  return file;
}

// A timer that takes `timer` exclusive, holds it `timing_for` with `timing_now` set (when given),
// sets `timed` and lets the lock go.
inline std::thread time_once(GpuLock& timer, std::atomic<bool>& timed, std::atomic<bool>* timing_now = nullptr,
                             std::chrono::milliseconds timing_for = std::chrono::milliseconds(0)) {
  return std::thread([&timer, &timed, timing_now, timing_for] {
    timer.hold(GpuLock::Mode::exclusive);
    if (timing_now) *timing_now = true;
    std::this_thread::sleep_for(timing_for);
    if (timing_now) *timing_now = false;
    timed = true;
    timer.hold(GpuLock::Mode::none);
  });
}

}  // namespace kbench::test
