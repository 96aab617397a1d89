#include "exec/wall_deadline.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "exec/interrupt.hpp"

namespace kbench {

WallDeadline::WallDeadline(double stop_after_s, double grace_s)
    : watcher_([this, stop_after_s, grace_s] { watch(stop_after_s, grace_s); }) {}

WallDeadline::~WallDeadline() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

bool WallDeadline::reached() const {
  std::lock_guard lock(mutex_);
  return reached_;
}

void WallDeadline::watch(double stop_after_s, double grace_s) {
  using Seconds = std::chrono::duration<double>;
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  const auto stop_at = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(Seconds(stop_after_s));
  if (wake_.wait_until(lock, stop_at, [this] { return cancelled_; })) return;
  reached_ = true;
  std::fputs(fmt::format("\nkbench: --max-wall {:g} s reached: no new jobs start; running jobs have {:g} s "
                         "(--max-wall-grace) to finish, then they are killed. --resume runs the rest.\n",
                         stop_after_s, grace_s)
                 .c_str(),
             stderr);
  request_interrupt();  // as the first Ctrl-C
  const auto kill_at = stop_at + std::chrono::duration_cast<std::chrono::steady_clock::duration>(Seconds(grace_s));
  if (wake_.wait_until(lock, kill_at, [this] { return cancelled_; })) return;
  std::fputs(fmt::format("\nkbench: --max-wall-grace {:g} s over: killing the running jobs; what finished is "
                         "reported.\n",
                         grace_s)
                 .c_str(),
             stderr);
  request_interrupt();  // as the second
}

}  // namespace kbench
