// The GPU lock's blame end to end on the CPU: a slot given a lock file (as CUDA slots are) runs a
// real worker that takes the lock, announces its `lock` lines on the result channel and has its
// frame accepted with them; while another named process holds the lock exclusive, the result
// names that holder in protocol.gpu_lock_waited_on, charged with the time the job waited.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "catch.hpp"
#include "device/gpu_lock_name.hpp"
#include "exec/controller.hpp"
#include "exec/interrupt.hpp"
#include "exec/lock_blame.hpp"
#include "exec/process_tree.hpp"
#include "exec/worker_process.hpp"
#include "run/job_planning.hpp"
#include "suite/suite.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {
// Whether /proc/locks lists a process blocked on the lock of the file with this inode
// ("N: -> FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF").
bool lock_has_waiter(const std::string& inode_field) {
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);)
    if (line.find("->") != std::string::npos && line.find(inode_field) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("a worker blocked on its slot's lock names the holder; its lock lines pass the channel") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  const auto lock = dir.write("kbench-gpu-test.lock", "");
  (void)dir.write(gpu_lock_gate_file(lock).filename().string(), "");
  const Suite suite = load_suite(test::kDataDir / "suites/quick.yaml");
  std::vector<Job> jobs = plan_jobs(suite, cpu_device());
  REQUIRE(!jobs.empty());
  jobs.resize(1);

  // Another "job" holds the lock exclusive from before the worker starts until 2 s after the
  // worker blocks on it (/proc/locks lists the waiter), not for a fixed time: a cold worker
  // start (torch loaded from disk after a rebuild) once outlasted a fixed 4 s hold.
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  // A root of its own, as another job's worker is: not an orphan for this job's tree to adopt.
  auto registry = ProcessTree::registry_lock();
  const pid_t holder = fork();
  if (holder == 0) {
    const int fd = open(lock.c_str(), O_RDONLY);
    flock(fd, LOCK_EX);
    (void)!write(ready[1], "x", 1);
    struct stat st {};
    fstat(fd, &st);
    const std::string inode = ":" + std::to_string(st.st_ino) + " ";
    for (int tenths = 0; tenths < 600 && !lock_has_waiter(inode); ++tenths) usleep(100000);
    sleep(2);
    _exit(0);
  }
  const ProcessTree holder_tree(holder, std::move(registry));
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);
  const NamedLockHolder named(holder, "other_problem/timing.py");

  ControllerOptions options;
  options.work_dir = dir.path() / "work";
  options.slots = {{cpu_device(), lock}};
  options.prestart = 0;
  std::vector<JobResult> results;
  options.on_result = [&](std::size_t, const JobResult& result) { results.push_back(result); };
  run_jobs(jobs, options);
  int status = 0;
  waitpid(holder, &status, 0);

  REQUIRE(results.size() == 1);
  const JobResult& result = results[0];
  INFO(result.message);
  CHECK(result.status == Status::ok);  // the frame, lock lines before it, was accepted
  REQUIRE(result.protocol.contains("gpu_lock_waited_on"));
  const auto& waited_on = result.protocol["gpu_lock_waited_on"];
  REQUIRE(waited_on.contains("other_problem/timing.py (exclusive)"));
  CHECK(waited_on["other_problem/timing.py (exclusive)"].get<double>() > 1.0);
  // The worker's own count of the same wait.
  CHECK(result.protocol.value("gpu_lock_wait_s", 0.0) > 1.0);
}
