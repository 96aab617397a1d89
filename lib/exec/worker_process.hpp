#pragma once
// Runs one worker as a child process: the same kbench binary, in its own process group, with its
// own working directory, stdout/stderr captured to files, and a private result pipe.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

namespace kbench {

struct WorkerLaunch {
  std::filesystem::path executable;  // empty: this kbench binary
  std::vector<std::string> args;  // after the executable; "--result-fd N" is appended
  std::filesystem::path work_dir;  // created; becomes the child's cwd and holds its logs
  double timeout_s = 600;
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
  // Polled while the worker runs: true while it waits for a lock another job holds (the
  // per-GPU lock). That time does not count against timeout_s, up to timeout_s in total.
  std::function<bool(pid_t)> waiting;
};

struct WorkerOutcome {
  bool timed_out = false;
  bool interrupted = false;  // kbench itself was interrupted; the job did not finish
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string channel_bytes;  // everything read from the result pipe
  std::string stdout_text;    // capped tails of the child's output
  std::string stderr_text;
  double wall_s = 0;
};

// Path of the running kbench executable (the worker is the same binary).
std::filesystem::path self_executable();

// Blocks until the worker exits or its deadline passes; then the whole process group is killed,
// so nothing the candidate started survives the job.
WorkerOutcome run_worker_process(const WorkerLaunch& launch);

}  // namespace kbench
