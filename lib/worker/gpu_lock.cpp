#include "worker/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/seconds_since.hpp"
#include "device/gpu_lock_name.hpp"

namespace kbench {
namespace {

void flock_retrying(int fd, int operation) {
  while (flock(fd, operation) != 0 && errno == EINTR) {
  }
}

}  // namespace

GpuLock& GpuLock::instance() {
  static GpuLock lock;
  return lock;
}

GpuLock::GpuLock() {
  const char* path = std::getenv("KBENCH_GPU_LOCK");
  if (path && *path) open_files(path);
}

GpuLock::GpuLock(const std::filesystem::path& file) { open_files(file); }

GpuLock::~GpuLock() {
  if (gate_fd_ >= 0) close(gate_fd_);
  if (fd_ >= 0) close(fd_);
}

void GpuLock::open_files(const std::filesystem::path& file) {
  // Read-only is enough for flock, and lets another user's run (umask 022) share the file.
  fd_ = open(file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::perror("kbench worker: GPU lock unavailable, timing unserialised");
    return;
  }
  // The controller creates the gate beside the lock (the sandbox may not let a worker create it).
  gate_fd_ = open(gpu_lock_gate_file(file).c_str(), O_RDONLY | O_CLOEXEC);
}

void GpuLock::drain() const {
  if (drain_) drain_();
}

double GpuLock::held_shared_s() const {
  return held_shared_s_ + (mode_ == Mode::shared ? seconds_since(held_since_) : 0);
}

double GpuLock::held_exclusive_s() const {
  return held_exclusive_s_ + (mode_ == Mode::exclusive ? seconds_since(held_since_) : 0);
}

double GpuLock::longest_shared_s() const {
  return std::max(longest_shared_s_, mode_ == Mode::shared ? seconds_since(held_since_) : 0.0);
}

void GpuLock::hold(Mode mode) {
  if (fd_ < 0 || mode == mode_) return;
  // Counted up to the request, not the grant: waiting for the next mode is wait_s.
  const double held = mode_ == Mode::none ? 0 : seconds_since(held_since_);
  if (mode_ == Mode::shared) {
    held_shared_s_ += held;
    longest_shared_s_ = std::max(longest_shared_s_, held);
  } else if (mode_ == Mode::exclusive) {
    held_exclusive_s_ += held;
  }
  // Letting the lock go (to none, or released to wait for exclusive) admits a timer: this
  // worker's queued kernels must be done first. A downgrade admits sharers only.
  if (mode_ != Mode::none && !(mode == Mode::shared && mode_ == Mode::exclusive)) drain();
  const auto start = std::chrono::steady_clock::now();
  if (mode == Mode::none) {
    flock_retrying(fd_, LOCK_UN);
  } else if (mode == Mode::shared && mode_ == Mode::exclusive) {
    flock_retrying(fd_, LOCK_SH);  // a downgrade never waits for anyone: no gate
  } else if (mode == Mode::shared) {
    if (gate_fd_ >= 0) flock_retrying(gate_fd_, LOCK_SH);  // queues behind a waiting timer
    flock_retrying(fd_, LOCK_SH);
    if (gate_fd_ >= 0) flock_retrying(gate_fd_, LOCK_UN);
  } else {
    if (mode_ == Mode::shared) flock_retrying(fd_, LOCK_UN);
    if (gate_fd_ >= 0) flock_retrying(gate_fd_, LOCK_EX);  // new shared holders wait from now on
    flock_retrying(fd_, LOCK_EX);
    if (gate_fd_ >= 0) flock_retrying(gate_fd_, LOCK_UN);
  }
  held_since_ = std::chrono::steady_clock::now();
  wait_s_ += std::chrono::duration<double>(held_since_ - start).count();
  mode_ = mode;
  if (observer_) observer_(mode);
}

bool GpuLock::yield_to_timer() {
  if (fd_ < 0 || gate_fd_ < 0 || mode_ != Mode::shared) return false;
  // The gate is held exclusive only by a timer waiting for the lock (hold(exclusive) lets it go
  // once the lock is its own): a shared probe that fails means one waits for us.
  if (flock(gate_fd_, LOCK_SH | LOCK_NB) == 0) {
    flock_retrying(gate_fd_, LOCK_UN);
    return false;
  }
  if (errno != EWOULDBLOCK) return false;
  hold(Mode::none);
  hold(Mode::shared);  // through the gate: after the timer (and any timer queued behind it)
  ++yields_;
  return true;
}

void SlicedSharedHold::before_step() {
  const auto now = std::chrono::steady_clock::now();
  if (!before_) before_ = lock_.mode();
  if (lock_.mode() != GpuLock::Mode::shared) {
    lock_.hold(GpuLock::Mode::shared);
    since_ = std::chrono::steady_clock::now();
    return;
  }
  if (now - since_ < slice_) return;
  lock_.yield_to_timer();  // false (and kept) when nobody waits
  since_ = std::chrono::steady_clock::now();
}

void SlicedSharedHold::release() {
  if (!before_) return;
  lock_.hold(*before_);
  before_.reset();
}

}  // namespace kbench
