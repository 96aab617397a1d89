#pragma once
// The per-GPU lock a worker holds while it uses a GPU that other workers share
// (docs/architecture.md#several-slots-and-the-gpu-lock): SHARED while it does GPU work,
// EXCLUSIVE while it times, none while it only imports. So one worker times at a time, and
// imports overlap another's timing. The controller names the lock file in KBENCH_GPU_LOCK (CUDA
// slots only); without it every call is a no-op.
namespace kbench {

class GpuLock {
 public:
  enum class Mode { none, shared, exclusive };

  // The worker's lock, opened on first use from KBENCH_GPU_LOCK.
  static GpuLock& instance();

  // Blocks until `mode` is held (flock; a conversion may briefly release the lock first).
  void hold(Mode mode);
  [[nodiscard]] Mode mode() const { return mode_; }
  [[nodiscard]] bool enabled() const { return fd_ >= 0; }
  [[nodiscard]] double wait_s() const { return wait_s_; }  // total time spent blocked

 private:
  GpuLock();
  int fd_ = -1;
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
