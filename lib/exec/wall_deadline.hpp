#pragma once
// `kbench run --max-wall S`: a run that must end by a deadline (a nightly slot, a device
// lease) stops itself as two Ctrl-Cs would (exec/interrupt.hpp), so the reports and the journal
// are written and `--resume` continues: at S seconds no new job starts; jobs still running
// `grace` seconds later are killed (what finished is reported, the killed ones run again on
// --resume). A thread sleeps until each moment; destroying the deadline cancels it.
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kbench {

class WallDeadline {
 public:
  WallDeadline(double stop_after_s, double grace_s);
  WallDeadline(const WallDeadline&) = delete;
  WallDeadline& operator=(const WallDeadline&) = delete;
  ~WallDeadline();

  [[nodiscard]] bool reached() const;  // the stop moment has passed (the run was cut)

 private:
  void watch(double stop_after_s, double grace_s);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool cancelled_ = false;
  bool reached_ = false;
  std::thread watcher_;
};

}  // namespace kbench
