// The per-GPU lock's protocol (lib/worker/gpu_lock.cpp): one GpuLock object per simulated worker
// (flock contends per open file, so objects in one process behave like separate workers).
#include <atomic>
#include <chrono>
#include <thread>

#include "catch.hpp"
#include "device/gpu_lock_name.hpp"
#include "gpu_lock_contender.hpp"
#include "temp_dir.hpp"
#include "worker/gpu_lock.hpp"

using namespace kbench;
using Mode = GpuLock::Mode;
using namespace std::chrono_literals;

using test::lock_with_gate;
using test::time_once;

TEST_CASE("a worker waiting to time goes before workers that start GPU work after it") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock reader(file), timer(file), late_reader(file);
  reader.hold(Mode::shared);
  std::atomic<int> order{0};
  std::atomic<int> timer_turn{0}, late_turn{0};
  std::thread timing([&] {
    timer.hold(Mode::exclusive);
    timer_turn = ++order;
    std::this_thread::sleep_for(100ms);
    timer.hold(Mode::shared);  // back to checks after timing
    timer.hold(Mode::none);
  });
  std::this_thread::sleep_for(100ms);  // the timer now waits for `reader`, holding the gate
  std::thread late([&] {
    late_reader.hold(Mode::shared);
    late_turn = ++order;
    late_reader.hold(Mode::none);
  });
  std::this_thread::sleep_for(100ms);
  // Without the gate the late reader would have joined `reader` by now and the timer would wait
  // for both.
  CHECK(late_turn == 0);
  CHECK(timer_turn == 0);
  reader.hold(Mode::none);
  timing.join();
  late.join();
  CHECK(timer_turn == 1);
  CHECK(late_turn == 2);
  CHECK(timer.wait_s() > 0.05);
}

TEST_CASE("two workers upgrading from shared to exclusive at once both get their turn") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock a(file), b(file);
  a.hold(Mode::shared);
  b.hold(Mode::shared);
  std::atomic<int> inside{0}, most{0}, done{0};
  auto time_once = [&](GpuLock& lock) {
    lock.hold(Mode::exclusive);
    most = std::max(most.load(), ++inside);
    std::this_thread::sleep_for(50ms);
    --inside;
    lock.hold(Mode::shared);
    lock.hold(Mode::none);
    ++done;
  };
  std::thread ta(time_once, std::ref(a)), tb(time_once, std::ref(b));
  ta.join();
  tb.join();
  CHECK(done == 2);
  CHECK(most == 1);  // never both exclusive
}

TEST_CASE("without a gate file (an older controller's lock) the lock still serialises timing") {
  test::TempDir dir;
  const auto file = dir.path() / "kbench-gpu-0.lock";
  GpuLock reader(file), timer(file);
  reader.hold(Mode::shared);
  std::atomic<bool> timed{false};
  std::thread timing = time_once(timer, timed);
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(timed);
  reader.hold(Mode::none);
  timing.join();
  CHECK(timed);
}

TEST_CASE("a shared holder's yield lets a waiting timer in before its next step") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock compiler(file), timer(file);
  int drained = 0;
  compiler.set_drain([&] { ++drained; });
  compiler.hold(Mode::shared);
  std::atomic<bool> timed{false}, compiler_inside{true}, overlapped{false};
  std::thread timing([&] {
    timer.hold(Mode::exclusive);
    timed = true;
    overlapped = compiler_inside.load();  // the compiler's GPU work must not run now
    std::this_thread::sleep_for(100ms);
    timer.hold(Mode::none);
  });
  std::this_thread::sleep_for(100ms);  // the timer waits at the lock, holding the gate
  CHECK_FALSE(timed);
  const int drains_before = drained;
  compiler_inside = false;  // between two steps
  CHECK(compiler.yield_to_timer());
  compiler_inside = true;  // the next step: only once the timer is done
  CHECK(timed);
  CHECK_FALSE(overlapped);
  CHECK(compiler.mode() == Mode::shared);
  CHECK(compiler.yields() == 1);
  CHECK(drained == drains_before + 1);  // its queued work drained before the timer went in
  CHECK(compiler.wait_s() > 0.05);      // it waited for the timer's 100 ms
  compiler.hold(Mode::none);  // (a yield that failed would leave the timer waiting on this)
  timing.join();
}

TEST_CASE("a yield with nobody waiting keeps the lock and does not wait") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock compiler(file), other_reader(file), timer(file);
  int drained = 0;
  compiler.set_drain([&] { ++drained; });
  compiler.hold(Mode::shared);
  other_reader.hold(Mode::shared);  // another worker's shared phase is no reason to yield
  for (int step = 0; step < 1000; ++step) CHECK_FALSE(compiler.yield_to_timer());
  CHECK(compiler.mode() == Mode::shared);
  CHECK(compiler.yields() == 0);
  CHECK(drained == 0);
  // Still held: a timer cannot get in until both readers let go.
  std::atomic<bool> timed{false};
  std::thread timing = time_once(timer, timed);
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(timed);
  other_reader.hold(Mode::none);
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(timed);
  CHECK(compiler.yield_to_timer());  // now the timer waits for this one alone
  CHECK(timed);
  compiler.hold(Mode::none);
  timing.join();
  // Not shared: nothing to yield.
  CHECK_FALSE(compiler.yield_to_timer());
  compiler.hold(Mode::exclusive);
  CHECK_FALSE(compiler.yield_to_timer());
  compiler.hold(Mode::none);
}

TEST_CASE("dropping the lock for CPU-only work lets a timer in and takes shared again behind it") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock compiler(file), timer(file);
  int drained = 0;
  compiler.set_drain([&] { ++drained; });
  compiler.hold(Mode::shared);
  std::atomic<bool> timing_now{false}, timed{false};
  std::thread timing = time_once(timer, timed, &timing_now, 100ms);
  std::this_thread::sleep_for(50ms);
  compiler.hold(Mode::none);  // a compile: no GPU work
  CHECK(drained == 1);
  std::this_thread::sleep_for(30ms);
  CHECK(timing_now);  // the timer went in during the compile
  compiler.hold(Mode::shared);  // its first launch: after the timing
  CHECK(timed);
  CHECK_FALSE(timing_now);
  timing.join();
  // A downgrade after timing drains nothing (it admits sharers only); the release to none does.
  compiler.hold(Mode::exclusive);
  const int before = drained;
  compiler.hold(Mode::shared);
  CHECK(drained == before);
  compiler.hold(Mode::none);
  CHECK(drained == before + 1);
}

TEST_CASE("hold times: per mode, and the longest unbroken shared hold, waits excluded") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock worker(file), other(file);
  worker.hold(Mode::shared);
  std::this_thread::sleep_for(60ms);
  worker.hold(Mode::none);
  worker.hold(Mode::shared);
  std::this_thread::sleep_for(20ms);
  worker.hold(Mode::exclusive);
  std::this_thread::sleep_for(30ms);
  worker.hold(Mode::none);
  other.hold(Mode::exclusive);  // worker now waits 250 ms for shared: a wait, not a hold
  std::thread release([&] {
    std::this_thread::sleep_for(250ms);
    other.hold(Mode::none);
  });
  worker.hold(Mode::shared);
  release.join();
  worker.hold(Mode::none);
  CHECK(worker.held_shared_s() >= 0.08);
  // Upper bounds with room for a loaded CI host's sleeps; the wait alone would exceed them.
  CHECK(worker.held_shared_s() < 0.25);
  CHECK(worker.longest_shared_s() >= 0.06);
  CHECK(worker.longest_shared_s() < 0.25);
  CHECK(worker.held_exclusive_s() >= 0.03);
  CHECK(worker.held_exclusive_s() < 0.25);
  CHECK(worker.wait_s() >= 0.24);
}

TEST_CASE("the gate's name") {
  CHECK(gpu_lock_gate_file("/run/kbench-gpu-0.lock") == "/run/kbench-gpu-0.lock.gate");
}

TEST_CASE("the observer hears every change of mode, once the mode is held, and nothing else") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock lock(file);
  std::vector<Mode> heard;
  lock.set_observer([&](Mode mode) { heard.push_back(mode); });
  lock.hold(Mode::shared);
  lock.hold(Mode::shared);  // no change: nothing heard
  lock.hold(Mode::exclusive);
  lock.hold(Mode::shared);
  CHECK_FALSE(lock.yield_to_timer());  // nobody waits: no change
  lock.hold(Mode::none);
  CHECK(heard == std::vector<Mode>{Mode::shared, Mode::exclusive, Mode::shared, Mode::none});
}

TEST_CASE("a sliced shared hold keeps the lock across steps and yields to a waiting timer only after its slice") {
  test::TempDir dir;
  const auto file = lock_with_gate(dir);
  GpuLock judge(file), timer(file);
  {
    SlicedSharedHold hold(300ms, judge);
    hold.before_step();
    CHECK(judge.mode() == Mode::shared);
    std::atomic<bool> timed{false};
    std::thread timing = time_once(timer, timed);
    std::this_thread::sleep_for(50ms);  // the timer now waits, holding the gate
    // Steps inside the slice: the lock is kept, the timer still waits.
    for (int step = 0; step < 5; ++step) {
      hold.before_step();
      CHECK(judge.mode() == Mode::shared);
    }
    CHECK_FALSE(timed);
    CHECK(judge.yields() == 0);
    std::this_thread::sleep_for(300ms);
    hold.before_step();  // the slice is over: the timer goes first, then shared again
    CHECK(timed);
    CHECK(judge.yields() == 1);
    CHECK(judge.mode() == Mode::shared);
    timing.join();
    // Nobody waits: a step after the slice keeps the lock without a yield.
    std::this_thread::sleep_for(310ms);
    hold.before_step();
    CHECK(judge.yields() == 1);
    hold.release();
    CHECK(judge.mode() == Mode::none);  // the mode held before its first step
    hold.before_step();                 // taken again after a release
    CHECK(judge.mode() == Mode::shared);
  }
  CHECK(judge.mode() == Mode::none);  // and let go when it ends
}
