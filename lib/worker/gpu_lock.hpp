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
//
// The gate alone still lets a shared holder in a long phase (an Inductor or Triton compile, a
// trial loop) hold a waiting timer off for the whole phase, and every later worker with it (the
// convoy: 132 of 139 s waiting on the H200, benchmarks/throughput/lock_convoy.cpp). So shared
// holders yield between the steps they control (yield_to_timer), and CPU-only work drops the
// lock (GpuLockScope(Mode::none)). Every release first drains this worker's GPU work (the drain
// hook), so none of it is still running when the timer starts.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

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
  // Between two steps of shared work: when a timer waits for the lock (the gate is held
  // exclusive), drains, releases, queues behind the timer through the gate and takes shared
  // again; true when it did. Otherwise (nobody waits, or not shared) one non-blocking probe of
  // the gate and false.
  bool yield_to_timer();
  // Called before a held lock is let go (to none, or released to wait for exclusive), so that
  // no GPU work of this worker is still queued when another worker's timing starts. The worker
  // sets a device synchronisation (gpu_lock_hooks.cpp); it must not throw.
  void set_drain(std::function<void()> drain) { drain_ = std::move(drain); }
  // Called after each change of mode (the worker tells the controller: result_channel.hpp's
  // `lock` line); must not throw.
  void set_observer(std::function<void(Mode)> observer) { observer_ = std::move(observer); }
  [[nodiscard]] Mode mode() const { return mode_; }
  [[nodiscard]] bool enabled() const { return fd_ >= 0; }
  [[nodiscard]] double wait_s() const { return wait_s_; }  // total time spent blocked
  [[nodiscard]] int yields() const { return yields_; }      // times yield_to_timer() let a timer in
  // Time held in each mode, and the longest unbroken shared hold: a shared holder keeps every
  // timer waiting, so a long one names the job a slow run queued behind (hold's caller can tell).
  [[nodiscard]] double held_shared_s() const;
  [[nodiscard]] double held_exclusive_s() const;
  [[nodiscard]] double longest_shared_s() const;

 private:
  GpuLock();
  void open_files(const std::filesystem::path& file);
  void drain() const;
  int fd_ = -1;
  int gate_fd_ = -1;  // -1: no gate file (an older controller's lock): plain flock, no priority
  Mode mode_ = Mode::none;
  double wait_s_ = 0;
  int yields_ = 0;
  std::chrono::steady_clock::time_point held_since_{};  // when mode_ was taken
  double held_shared_s_ = 0;
  double held_exclusive_s_ = 0;
  double longest_shared_s_ = 0;
  std::function<void()> drain_;
  std::function<void(Mode)> observer_;
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

// Shared across many short GPU steps with CPU work between them (the judge's reference calls, one
// per committed call). Taken per step, each step queued behind every timer then waiting: 38 calls
// of a small MLP waited 55 s on the H200 beside seven other jobs, for well under a second of GPU
// work. Kept across steps, the hold yields to a waiting timer only once `slice` has passed since
// it was taken or last yielded, so a timer waits about a slice (and a step) at most.
class SlicedSharedHold {
 public:
  explicit SlicedSharedHold(std::chrono::milliseconds slice, GpuLock& lock = GpuLock::instance())
      : lock_(lock), slice_(slice) {}
  ~SlicedSharedHold() { release(); }
  SlicedSharedHold(const SlicedSharedHold&) = delete;
  SlicedSharedHold& operator=(const SlicedSharedHold&) = delete;
  // Before each step: shared taken (the first time, or after a release), or kept, or let go to a
  // waiting timer and taken again behind it when the slice is over.
  void before_step();
  // Back to the mode held before the first step: what follows is CPU work.
  void release();

 private:
  GpuLock& lock_;
  std::chrono::milliseconds slice_;
  std::optional<GpuLock::Mode> before_;
  std::chrono::steady_clock::time_point since_{};
};

}  // namespace kbench
