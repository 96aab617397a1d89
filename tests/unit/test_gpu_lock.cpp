// The per-GPU lock's protocol (lib/worker/gpu_lock.cpp): one GpuLock object per simulated worker
// (flock contends per open file, so objects in one process behave like separate workers).
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "catch.hpp"
#include "device/gpu_lock_name.hpp"
#include "temp_dir.hpp"
#include "worker/gpu_lock.hpp"

using namespace kbench;
using Mode = GpuLock::Mode;
using namespace std::chrono_literals;

namespace {

std::filesystem::path lock_with_gate(const test::TempDir& dir) {
  const auto file = dir.path() / "kbench-gpu-0.lock";
  std::ofstream(file).close();
  std::ofstream(gpu_lock_gate_file(file)).close();  // as the controller does
  return file;
}

}  // namespace

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
  std::thread timing([&] {
    timer.hold(Mode::exclusive);
    timed = true;
    timer.hold(Mode::none);
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(timed);
  reader.hold(Mode::none);
  timing.join();
  CHECK(timed);
}

TEST_CASE("the gate's name") {
  CHECK(gpu_lock_gate_file("/run/kbench-gpu-0.lock") == "/run/kbench-gpu-0.lock.gate");
}
