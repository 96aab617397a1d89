#pragma once
// The per-GPU lock a worker holds while it uses a GPU that other workers share
// (docs/architecture.md#several-slots-and-the-gpu-lock): SHARED while it does GPU work,
// EXCLUSIVE while it times, none while it only imports. So one worker times at a time, and
// imports overlap another's timing. The controller names the lock file in KBENCH_GPU_LOCK (CUDA
// slots only); without it every call is a no-op.
//
// flock alone lets new shared holders in while an exclusive request waits, so with several
// workers per GPU (each in a shared phase most of the time) a worker waiting to time could wait
// for ever. A gate file beside the lock (gpu_lock_gate_file) gives the timing worker priority:
// it holds the gate exclusive while it waits for the lock, and a worker taking the lock shared
// from none passes through the gate (shared) first, so it queues behind the waiting timer.
#include <filesystem>

namespace kbench {

class GpuLock {
 public:
  enum class Mode { none, shared, exclusive };

  // The worker's lock, opened on first use from KBENCH_GPU_LOCK.
  static GpuLock& instance();
  // A lock on `file` and its gate (tests: separate objects contend like separate workers).
  explicit GpuLock(const std::filesystem::path& file);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  // Blocks until `mode` is held. Going to exclusive from shared releases the lock first (as a
  // flock conversion may anyway), so that no holder of the lock ever waits on the gate.
  void hold(Mode mode);
  [[nodiscard]] Mode mode() const { return mode_; }
  [[nodiscard]] bool enabled() const { return fd_ >= 0; }
  [[nodiscard]] double wait_s() const { return wait_s_; }  // total time spent blocked

 private:
  GpuLock();
  void open_files(const std::filesystem::path& file);
  int fd_ = -1;
  int gate_fd_ = -1;  // -1: no gate file (an older controller's lock): plain flock, no priority
  Mode mode_ = Mode::none;
  double wait_s_ = 0;
};

// Holds `mode` for a scope, then returns to the mode held before.
class GpuLockScope {
 public:
  explicit GpuLockScope(GpuLock::Mode mode) : previous_(GpuLock::instance().mode()) {
    GpuLock::instance().hold(mode);
  }
  ~GpuLockScope() { GpuLock::instance().hold(previous_); }
  GpuLockScope(const GpuLockScope&) = delete;
  GpuLockScope& operator=(const GpuLockScope&) = delete;

 private:
  GpuLock::Mode previous_;
};

}  // namespace kbench
