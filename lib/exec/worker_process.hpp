#pragma once
// Runs one worker as a child process: the same kbench binary, in its own process group, with its
// own working directory, inside the sandbox (exec/sandbox.hpp), stdout/stderr drained through
// pipes into capped captures, a private result pipe authenticated with a per-job key, and a
// watchdog for time (overall, compile phase, run phase) and host memory.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "exec/sandbox.hpp"
#include "exec/call_reveal.hpp"
#include "exec/timing_witness.hpp"

namespace kbench {

struct WorkerLaunch {
  std::filesystem::path executable;  // empty: worker_executable()
  // After the executable; "--result-fd 3 --key-fd 4" is appended.
  std::vector<std::string> args;
  std::filesystem::path work_dir;  // created; becomes the child's cwd and holds its logs
  double timeout_s = 600;          // the whole worker
  double compile_timeout_s = 0;    // > 0: until the worker announces the run phase
  double run_timeout_s = 0;        // > 0: from the run-phase announcement on
  // > 0: each extension build, from its "build" to its "build-end" line; build time does not
  // count against compile_timeout_s (timeout_s still bounds everything).
  double build_timeout_s = 0;
  std::uint64_t memory_limit_bytes = 0;  // > 0: resident memory of the whole process tree
  std::size_t output_cap_bytes = 1 << 20;  // per stream: first and last half kept
  std::map<std::string, std::string> env;  // set on top of the sandbox's scrubbed environment
  SandboxOptions sandbox;
  // Polled while the worker runs with the pids of its process tree: true while one of them waits
  // for a lock another job holds (the per-GPU lock). That time does not count against the
  // limits, up to timeout_s in total.
  std::function<bool(const std::vector<pid_t>&)> waiting;
  // The worker's name while it runs ("problem/candidate"), for the lock holders that other jobs'
  // waits are charged to (exec/lock_blame.hpp); empty: not named.
  std::string holder_name;
  // Pre-started workers: when set, the worker starts at once but waits after its imports (Python,
  // torch, triton) until this returns; it is called on the thread that runs the worker and may
  // block. true releases the worker, false cancels it (outcome.interrupted). The limits and
  // wall_s count from the release.
  std::function<bool()> hold_until;
  // The per-GPU lock file of the worker's slot, if any: from its result frame until it is
  // reaped, the controller holds it shared for the dying worker, so no other worker times on the
  // GPU while the driver tears this one's context down.
  std::filesystem::path gpu_lock;
  // The result frame's key; empty (always, outside tests): 32 fresh random bytes.
  std::string channel_key;
  // The timing witness (exec/timing_witness.hpp): sent on the worker's fd 5 when it announces
  // `witness-ready`; empty: fd 5 is at EOF from the start.
  std::string witness_seeds;
  // An isolated candidate's sampled calls (exec/call_reveal.hpp): each `reveal <digest>` it
  // announces is answered on fd 5 with a fresh seed, recorded in WorkerOutcome::reveals.
  bool reveal_calls = false;
};

struct WorkerOutcome {
  bool timed_out = false;
  std::string timeout_limit;  // "timeout_s", "compile_timeout_s", "run_timeout_s", "build_timeout_s"
  double timeout_limit_s = 0;
  bool memory_exceeded = false;
  std::uint64_t peak_memory_bytes = 0;
  // Peak of the quick resident-set sum over the tree, every scan (pages shared by forked
  // children counted once per child): the host figure every result reports.
  std::uint64_t peak_resident_bytes = 0;
  bool interrupted = false;  // kbench itself was interrupted; the job did not finish
  // A complete, authenticated result frame arrived: the job ended there, and the worker is
  // being killed and reaped in the background (exec/background_reaper.hpp).
  bool delivered = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string channel_bytes;  // everything read from the result pipe
  std::string channel_key;    // the key the worker's frame must be authenticated with
  std::string stdout_text;    // 8 KiB tails of the child's output
  std::string stderr_text;
  std::uint64_t stdout_bytes = 0, stderr_bytes = 0;
  bool output_truncated = false;  // stdout.log / stderr.log hold only the head and the tail
  nlohmann::json sandbox;         // sandbox_report() of this launch
  double wall_s = 0;
  std::optional<WitnessWindow> witness;  // the seeds sent and `witness-end` read, on this clock
  std::vector<CallReveal> reveals;       // with reveal_calls: every seed sent, in order
};

// Path of the running executable.
std::filesystem::path self_executable();
// kbench-worker next to it: the executable with embedded Python and LibTorch that a worker
// runs (apps/kbench/worker_commands.hpp says why it is not kbench itself). A host that embeds
// the controller in another program (a test, the Python module to come) names the kbench binary
// whose kbench-worker to run with set_worker_executable().
std::filesystem::path worker_executable();
void set_worker_executable(const std::filesystem::path& kbench_binary);

// Blocks until the worker delivers its result frame or exits, or a limit or an interrupt stops
// it; then the whole process group and every other descendant are killed, so nothing the
// candidate started survives the job (after a delivered frame, in the background:
// BackgroundReaper::wait_all() waits for that).
WorkerOutcome run_worker_process(const WorkerLaunch& launch);

}  // namespace kbench
