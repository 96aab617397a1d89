// LockBlame: a job's waits for the GPU lock charged to the holders named in /proc/locks, by
// the names the controller gave its workers; real flock()s between forked processes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "catch.hpp"
#include "exec/lock_blame.hpp"
#include "exec/lock_wait.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

// A child that takes `file` in `operation` (LOCK_SH or LOCK_EX), holds it `seconds`, exits.
pid_t child_locking(const std::filesystem::path& file, int operation, double seconds) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(file.c_str(), O_RDONLY);
    flock(fd, operation);
    usleep(useconds_t(seconds * 1e6));
    _exit(0);
  }
  return pid;
}

void reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
}

std::vector<FlockHolder> holders_of(const std::filesystem::path& file) { return flock_states({file})[0].holders; }

bool eventually(const std::function<bool()>& seen) {
  for (int i = 0; i < 50; ++i) {
    if (seen()) return true;
    usleep(20000);
  }
  return false;
}

}  // namespace

TEST_CASE("flock_states names the processes holding a file's flock and their mode") {
  test::TempDir dir;
  const auto lock = dir.write("gpu.lock", "");
  const pid_t reader = child_locking(lock, LOCK_SH, 1.0);
  REQUIRE(eventually([&] { return !holders_of(lock).empty(); }));
  const auto holders = holders_of(lock);
  REQUIRE(holders.size() == 1);
  CHECK(holders[0].pid == reader);
  CHECK_FALSE(holders[0].exclusive);
  CHECK(holders_of(dir.write("other.lock", "")).empty());
  reap(reader);
  CHECK(holders_of(lock).empty());
  const pid_t writer = child_locking(lock, LOCK_EX, 0.5);
  REQUIRE(eventually([&] { return !holders_of(lock).empty(); }));
  CHECK(holders_of(lock)[0].exclusive);
  reap(writer);
}

TEST_CASE("a job's wait is charged to the named holder of the lock, not to the job's own processes; the holder's job learns what it cost") {
  test::TempDir dir;
  const auto lock = dir.write("gpu.lock", "");
  const auto gate = dir.write("gpu.lock.gate", "");
  const pid_t holder = child_locking(lock, LOCK_SH, 1.2);
  const NamedLockHolder named(holder, "02_softmax/slow.py [judge]");
  REQUIRE(eventually([&] { return !holders_of(lock).empty(); }));
  const pid_t waiter = child_locking(lock, LOCK_EX, 0.0);
  LockBlame blame;
  const auto started = std::chrono::steady_clock::now();
  // The watchdog's polling, as run_worker_process does it (every 100 ms at most).
  while (std::chrono::steady_clock::now() - started < std::chrono::milliseconds(700)) {
    const auto states = flock_states({lock, gate});
    blame.poll(states[0].waited_by({waiter}), {waiter}, states[0], states[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto waited_on = blame.json();
  REQUIRE(waited_on.is_object());
  REQUIRE(waited_on.contains("02_softmax/slow.py [judge] (shared)"));
  const double seconds = waited_on["02_softmax/slow.py [judge] (shared)"].get<double>();
  CHECK(seconds > 0.4);
  CHECK(seconds < 0.8);
  CHECK(waited_on.size() == 1);
  CHECK(blame.waited_s() == Approx(seconds));
  // What the holder's job cost the others, for its stop line: any role, read once.
  CHECK(LockHolderNames::instance().take_charged("02_softmax/slow") == 0);
  CHECK(LockHolderNames::instance().take_charged("02_softmax/slow.py") == Approx(seconds));
  CHECK(LockHolderNames::instance().take_charged("02_softmax/slow.py") == 0);
  reap(holder);
  reap(waiter);
}

TEST_CASE("a job that never waited, or waited less than 0.1 s, charges nobody") {
  test::TempDir dir;
  const auto lock = dir.write("gpu.lock", "");
  const auto gate = dir.write("gpu.lock.gate", "");
  LockBlame blame;
  const pid_t holder = child_locking(lock, LOCK_EX, 0.5);
  REQUIRE(eventually([&] { return !holders_of(lock).empty(); }));
  const auto states = flock_states({lock, gate});
  REQUIRE(states[0].holders.size() == 1);
  for (int i = 0; i < 5; ++i) blame.poll(false, {}, states[0], states[1]);
  blame.poll(true, {}, states[0], states[1]);
  blame.poll(true, {}, states[0], states[1]);  // microseconds apart
  CHECK(blame.json().is_null());
  reap(holder);
}

TEST_CASE("a worker's name outlives it briefly as exiting; this process is named for the teardown hold") {
  auto& names = LockHolderNames::instance();
  names.add(424242, "l1_11_bmm/x.py");
  CHECK(names.name_of(424242) == "l1_11_bmm/x.py");
  names.remove(424242);
  CHECK(names.name_of(424242) == "l1_11_bmm/x.py (exiting)");
  CHECK(names.name_of(424243) == "pid 424243");
  CHECK(names.name_of(getpid()).find("teardown") != std::string::npos);
  // The phase its last `lock` line named (result_channel.hpp), while it runs.
  names.add(424244, "c04_mlp_stack/m.py [judge]");
  names.set_phase(424244, "correctness");
  CHECK(names.name_of(424244) == "c04_mlp_stack/m.py [judge] in correctness");
  names.set_phase(424999, "timing");  // not a worker of this process: ignored
  CHECK(names.name_of(424999) == "pid 424999");
  names.remove(424244);
  CHECK(names.name_of(424244) == "c04_mlp_stack/m.py [judge] (exiting)");
}

TEST_CASE("a stopped job's workers say where they were: the phase and for how long, running or ended") {
  auto& names = LockHolderNames::instance();
  names.add(425001, "l1_08_cumsum/scan.py [reference]");
  names.add(425002, "l1_08_cumsum/scan.py [candidate]");
  names.add(425003, "l1_08_cumsum_other/scan.py [candidate]");  // another job with a longer name
  CHECK(names.whereabouts("l1_08_cumsum/scan.py").empty());  // no phase said yet
  names.set_phase(425001, "setup");
  names.set_phase(425002, "extension_build");
  names.set_phase(425003, "timing");
  names.remove(425001);
  const std::string said = names.whereabouts("l1_08_cumsum/scan.py");
  CHECK(said == "[candidate] in extension_build for 0 s, [reference] ended in setup after 0 s");
  // The same phase again keeps its start: the time in it is not reset by a repeated line.
  names.set_phase(425002, "extension_build");
  CHECK(names.whereabouts("l1_08_cumsum/scan.py").find("[candidate] in extension_build") == 0);
  CHECK(names.whereabouts("l1_08_cumsum_other/scan.py") == "[candidate] in timing for 0 s");
  names.remove(425002);
  names.remove(425003);
}
