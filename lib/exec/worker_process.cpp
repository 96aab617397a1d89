#include "exec/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <system_error>

#include "exec/background_reaper.hpp"
#include "exec/interrupt.hpp"
#include "exec/lock_blame.hpp"
#include "exec/output_capture.hpp"
#include "exec/process_tree.hpp"
#include "exec/result_channel.hpp"
#include "exec/tree_schedule.hpp"

namespace kbench {
namespace {

constexpr int kChildResultFd = 3;
constexpr int kChildKeyFd = 4;
constexpr int kChildWitnessFd = 5;
constexpr int kChildFds = 6;
constexpr std::size_t kOutputTailBytes = 8192;
constexpr std::size_t kChannelCap = 64u << 20;  // a real frame is small
constexpr std::size_t kMaxReveals = 1u << 20;   // one per sample; the channel cap comes first
constexpr auto kScanPeriod = std::chrono::milliseconds(150);

// Everything the child needs, prepared before fork (the child must not allocate).
struct ChildPlan {
  const Sandbox* sandbox;
  const char* exe;
  char* const* argv;
  const char* cwd;
  pid_t controller;  // the child dies at once if this is no longer its parent
  int fds[kChildFds];  // become 0..5: /dev/null, stdout, stderr, result, key, witness seeds
};

[[noreturn]] void child_fail(int err_fd, const char* what) {
  const char prefix[] = "kbench sandbox: ";
  (void)!write(err_fd, prefix, sizeof(prefix) - 1);
  (void)!write(err_fd, what, std::strlen(what));
  const char* why = std::strerror(errno);  // not async-signal-safe in theory; glibc's is a table
  (void)!write(err_fd, ": ", 2);
  (void)!write(err_fd, why, std::strlen(why));
  (void)!write(err_fd, "\n", 1);
  _exit(126);
}

// The process that execs the worker: fds 0-5, Landlock, then nothing else open.
[[noreturn]] void become_worker(const ChildPlan& plan) {
  if (chdir(plan.cwd) != 0) child_fail(plan.fds[2], "chdir to the job dir");
  // Before the dup2s below, which may land on the ruleset's fd.
  if (!plan.sandbox->restrict_filesystem()) child_fail(plan.fds[2], "Landlock restriction");
  int high[kChildFds];
  for (int i = 0; i < kChildFds; ++i) high[i] = fcntl(plan.fds[i], F_DUPFD, 32);  // out of 0..5's way
  for (int i = 0; i < kChildFds; ++i) dup2(high[i], i);  // dup2 clears FD_CLOEXEC on the copy
  // Everything else the controller has open stays behind.
  for (int fd = kChildWitnessFd + 1; fd < 4096; ++fd) close(fd);
  execve(plan.exe, plan.argv, plan.sandbox->envp());
  child_fail(STDERR_FILENO, "execve of the worker");
}

// Ends this process the way `status` says its child ended, so the controller sees the worker's
// own exit code or signal through the namespace helpers.
[[noreturn]] void mirror(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    kill(getpid(), sig);
  }
  _exit(125);
}

void close_all_but(int keep) {
  for (int fd = 0; fd < 4096; ++fd)
    if (fd != keep) close(fd);
}

// In the child, between fork and exec: only async-signal-safe calls. With namespaces the shape
// is controller -> A (outside, mirrors the status) -> B (PID 1 of the new namespace: when it
// ends, the kernel kills everything left inside) -> the worker. The worker's parent is then B,
// which it cannot signal (init ignores signals from inside), and the controller is invisible.
[[noreturn]] void run_child(const ChildPlan& plan) {
  setpgid(0, 0);
  // Die with the controller (even on its SIGKILL), so `kbench run --resume` never races an
  // orphaned worker of the killed run. The slot thread that forked outlives the worker.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != plan.controller) _exit(127);  // it died before prctl took effect
  signal(SIGPIPE, SIG_DFL);  // the controller ignores it; exec keeps an ignored disposition
  if (!plan.sandbox->enter()) child_fail(plan.fds[2], "entering the sandbox (rlimits, namespaces)");
  if (!plan.sandbox->uses_pid_namespace()) become_worker(plan);
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) child_fail(plan.fds[2], "pipe");
  const pid_t init = fork();
  if (init < 0) child_fail(plan.fds[2], "fork of the namespace's init");
  if (init == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    const pid_t worker = fork();
    if (worker < 0) child_fail(plan.fds[2], "fork of the worker");
    if (worker == 0) become_worker(plan);
    close_all_but(status_pipe[1]);
    int status = 0;
    for (;;) {  // as init, reap every orphan until the worker itself ends
      const pid_t done = waitpid(-1, &status, 0);
      if (done == worker) break;
      if (done < 0 && errno != EINTR) {
        status = 125 << 8;
        break;
      }
    }
    (void)!write(status_pipe[1], &status, sizeof(status));
    _exit(0);
  }
  close_all_but(status_pipe[0]);
  int status = 0;
  const bool reported = read(status_pipe[0], &status, sizeof(status)) == ssize_t(sizeof(status));
  int init_status = 0;
  while (waitpid(init, &init_status, 0) < 0 && errno == EINTR) {}
  mirror(reported ? status : init_status);
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available now from `fd` into `sink`; false at EOF or on error.
template <typename Sink>
bool drain(int fd, Sink&& sink, std::size_t budget) {
  char buffer[65536];
  while (budget > 0) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      sink(buffer, std::size_t(n));
      budget -= std::min(budget, std::size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

void write_log(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// An fd holding `path` flocked shared, or -1. Non-blocking: the worker itself holds the lock
// shared until it is gone, so this only fails when it did not (another worker is timing), and
// then there is nothing of its to protect.
int hold_gpu_lock_shared(const std::filesystem::path& path) {
  if (path.empty()) return -1;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

// The logs in the job dir and the tails and sizes in the outcome.
void finish_output(const WorkerLaunch& launch, const OutputCapture& out, const OutputCapture& err,
                   WorkerOutcome& outcome) {
  write_log(launch.work_dir / "stdout.log", out.text());
  write_log(launch.work_dir / "stderr.log", err.text());
  outcome.stdout_text = out.tail(kOutputTailBytes);
  outcome.stderr_text = err.tail(kOutputTailBytes);
  outcome.stdout_bytes = out.total_bytes();
  outcome.stderr_bytes = err.total_bytes();
  outcome.output_truncated = out.truncated() || err.truncated();
}

}  // namespace

namespace {
std::mutex worker_executable_mutex;
std::filesystem::path worker_executable_override;
}  // namespace

void set_worker_executable(const std::filesystem::path& kbench_binary) {
  std::lock_guard lock(worker_executable_mutex);
  worker_executable_override = kbench_binary;
}

std::filesystem::path self_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::filesystem::path worker_executable() {
  std::filesystem::path kbench;
  {
    std::lock_guard lock(worker_executable_mutex);
    kbench = worker_executable_override;
  }
  return (kbench.empty() ? self_executable() : kbench).parent_path() / "kbench-worker";
}

WorkerOutcome run_worker_process(const WorkerLaunch& launch) {
  protect_controller();
  std::filesystem::create_directories(launch.work_dir);
  const auto exe = (launch.executable.empty() ? worker_executable() : launch.executable).string();
  std::vector<std::string> args = {exe};
  args.insert(args.end(), launch.args.begin(), launch.args.end());
  for (const auto& extra : {"--result-fd", "3", "--key-fd", "4", "--witness-fd", "5"}) args.push_back(extra);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const Sandbox sandbox(launch.work_dir, launch.env, launch.sandbox);
  const std::string cwd = std::filesystem::absolute(launch.work_dir).string();

  WorkerOutcome outcome;
  outcome.sandbox = sandbox_report(launch.sandbox);
  outcome.channel_key = launch.channel_key.empty() ? make_channel_key() : launch.channel_key;
  int result[2], key[2], out[2], err[2], witness[2];
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0 || pipe2(result, O_CLOEXEC) != 0 || pipe2(key, O_CLOEXEC) != 0 ||
      pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(witness, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot set up a worker");
  const ChildPlan plan{&sandbox, exe.c_str(), argv.data(), cwd.c_str(), getpid(),
                       {devnull, out[1], err[1], result[1], key[0], witness[0]}};

  auto registry = ProcessTree::registry_lock();
  const pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) run_child(plan);
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
  for (int fd : {devnull, out[1], err[1], result[1], key[0], witness[0]}) close(fd);
  // Open only while the worker may still ask for its witness seeds.
  int witness_fd = witness[1];
  auto close_witness = [&] {
    if (witness_fd >= 0) close(witness_fd);
    witness_fd = -1;
  };
  if (launch.witness_seeds.empty() && !launch.reveal_calls) close_witness();
  // Registered before any hold: another slot's sweep must not take a held worker for an orphan.
  auto tree = std::make_unique<ProcessTree>(pid, std::move(registry));
  std::optional<NamedLockHolder> named;
  if (!launch.holder_name.empty()) named.emplace(pid, launch.holder_name);
  // The worker reads its key after its imports and before any candidate code runs, so holding
  // the key back is what holds a pre-started worker.
  const bool released = !launch.hold_until || launch.hold_until();
  const auto started = std::chrono::steady_clock::now();
  if (released)
    (void)write_all(key[1], outcome.channel_key);  // a worker already dead is seen below
  else
    outcome.interrupted = true;
  close(key[1]);
  for (int fd : {result[0], out[0], err[0]}) set_nonblocking(fd);
  // A worker that asks for reveals without reading them must not block this loop: a full pipe
  // closes the channel (its next read is EOF).
  if (witness_fd >= 0) set_nonblocking(witness_fd);

  OutputCapture stdout_capture(launch.output_cap_bytes), stderr_capture(launch.output_cap_bytes);
  auto to_channel = [&](const char* data, std::size_t n) {
    if (outcome.channel_bytes.size() < kChannelCap) outcome.channel_bytes.append(data, n);
  };
  auto to_stdout = [&](const char* data, std::size_t n) { stdout_capture.append(data, n); };
  auto to_stderr = [&](const char* data, std::size_t n) { stderr_capture.append(data, n); };
  bool open_fd[3] = {true, true, true};
  const int read_fd[3] = {result[0], out[0], err[0]};
  auto drain_all = [&](std::size_t budget) {
    if (open_fd[0]) open_fd[0] = drain(result[0], to_channel, budget);
    if (open_fd[1]) open_fd[1] = drain(out[0], to_stdout, budget);
    if (open_fd[2]) open_fd[2] = drain(err[0], to_stderr, budget);
  };

  using Clock = std::chrono::steady_clock;
  auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  std::optional<Clock::time_point> run_phase_since, build_since, witness_since;
  TreeSchedule witness_schedule;
  Clock::duration built{};
  PhaseReader phases;
  auto next_scan = started, next_precise = started, last_poll = started;
  Clock::duration waited{}, waited_before_run{};
  int wait_status = 0;
  bool exited = false;
  // The phase lines read so far; also once more after the frame, which may share a read with
  // the last of them (`witness-end`).
  auto take_phases = [&](Clock::time_point now) {
    for (const auto& phase : phases.next(outcome.channel_bytes)) {
      if (phase == kRunPhase && !run_phase_since) {
        run_phase_since = now;
        waited_before_run = waited;
      } else if (phase == kBuildPhase && !build_since) {
        build_since = now;
        LockHolderNames::instance().set_phase(pid, "extension_build");
      } else if (phase == kBuildEndPhase && build_since) {
        built += now - *build_since;
        build_since.reset();
        LockHolderNames::instance().set_phase(pid, "extension_build_done");
      } else if (phase == kImportPhase) {
        LockHolderNames::instance().set_phase(pid, "candidate_import");
      } else if (phase == kWitnessReadyPhase && witness_fd >= 0 && !witness_since) {
        // Only inside a PID namespace does the tree keep every process the candidate starts
        // (orphans go to its init, not to this subreaper), so only there is the host's share of
        // the window told apart from the tree's own work (tree_schedule.hpp). That is the CPU's
        // case; on CUDA a credit would be unsound anyway: the calls run on the GPU while the
        // thread that launched them waits for a CPU (threat-model.md, the timing witness).
        if (sandbox.uses_pid_namespace()) witness_schedule = sample_tree_schedule(pid);
        // The clock starts as the seeds leave: nothing of the window's work can start earlier.
        witness_since = Clock::now();
        (void)write_all(witness_fd, launch.witness_seeds + "\n");
        // The window's calls are opened in groups, each group's leaves drawn by a reveal
        // answered here (timing_witness.hpp): the channel stays open for them.
        if (!launch.reveal_calls) close_witness();
      } else if (phase.rfind(kRevealPrefix, 0) == 0 && launch.reveal_calls && witness_fd >= 0 &&
                 outcome.reveals.size() < kMaxReveals) {
        // The seed is drawn only now, after the digest it answers was read.
        outcome.reveals.push_back({phase.substr(kRevealPrefix.size()), draw_reveal_seed(),
                                   /*witness=*/witness_since && !outcome.witness});
        if (!write_all(witness_fd, std::to_string(outcome.reveals.back().seed) + "\n")) close_witness();
      } else if (phase.rfind(kLockPrefix, 0) == 0) {
        // "lock <mode> <phase>": the phase names this worker as a holder (lock_blame.hpp).
        LockHolderNames::instance().set_phase(pid, phase.substr(phase.rfind(' ') + 1));
      } else if (phase.rfind(kWitnessEndPrefix, 0) == 0 && witness_since && !outcome.witness) {
        outcome.witness = WitnessWindow{std::chrono::duration<double>(now - *witness_since).count(),
                                        phase.substr(kWitnessEndPrefix.size())};
        if (witness_schedule.ok)
          outcome.witness->host_wait_s =
              host_wait_s(witness_schedule, sample_tree_schedule(pid), outcome.witness->wall_s);
        // The last group of witness calls is opened under a seed drawn now, its roots fixed by
        // the digest just read (worker/witness_groups.hpp).
        if (launch.reveal_calls && witness_fd >= 0 && outcome.reveals.size() < kMaxReveals) {
          outcome.reveals.push_back({outcome.witness->digest, draw_reveal_seed(), /*witness=*/true});
          if (!write_all(witness_fd, std::to_string(outcome.reveals.back().seed) + "\n")) close_witness();
        }
      }
    }
  };
  std::size_t checked_bytes = 0;
  while (!exited && !outcome.interrupted && !outcome.delivered) {
    const auto now = Clock::now();
    // Time spent waiting for a lock another job holds (the per-GPU lock) moves every limit
    // back, up to timeout_s in total.
    if (launch.waiting && launch.waiting(tree->pids()))
      waited = std::min(seconds(launch.timeout_s), waited + (now - last_poll));
    last_poll = now;
    if (kill_requested()) {  // the second Ctrl-C; the first lets the job finish
      outcome.interrupted = true;
      break;
    }
    take_phases(now);
    // Extension builds have their own limit and do not count against the compile limit.
    const auto building = built + (build_since ? now - *build_since : Clock::duration{});
    // The earliest of the limits that apply now.
    const auto origin = started + waited;
    Clock::time_point deadline = origin + seconds(launch.timeout_s);
    const char* limit_name = "timeout_s";
    double limit_s = launch.timeout_s;
    auto consider = [&](Clock::time_point at, const char* name, double limit) {
      if (at < deadline) deadline = at, limit_name = name, limit_s = limit;
    };
    if (!run_phase_since && launch.compile_timeout_s > 0)
      consider(origin + building + seconds(launch.compile_timeout_s), "compile_timeout_s",
               launch.compile_timeout_s);
    if (build_since && launch.build_timeout_s > 0)
      consider(*build_since + seconds(launch.build_timeout_s), "build_timeout_s", launch.build_timeout_s);
    if (run_phase_since && launch.run_timeout_s > 0)
      consider(*run_phase_since + (waited - waited_before_run) + seconds(launch.run_timeout_s), "run_timeout_s",
               launch.run_timeout_s);
    if (now >= deadline) {
      outcome.timed_out = true;
      outcome.timeout_limit = limit_name;
      outcome.timeout_limit_s = limit_s;
      break;
    }
    // The timing witness's window is timed on this loop's clock: a scan of a large process tree
    // (reading every child's memory maps) would stretch it, so scans wait while it is open, for
    // up to a second.
    const bool witness_open = witness_since && !outcome.witness && now - *witness_since < std::chrono::seconds(1);
    if (now >= next_scan && !witness_open) {
      // Tracks every descendant (for the final sweep) and watches the host-memory limit.
      const std::uint64_t resident = tree->scan();
      outcome.peak_resident_bytes = std::max(outcome.peak_resident_bytes, resident);
      next_scan = now + kScanPeriod;
      // The quick sum counts pages shared by forked children once per child; confirm with the
      // proportional sizes, which are slower to read (at most once a second when under).
      if (launch.memory_limit_bytes > 0 && resident > launch.memory_limit_bytes &&
          now >= next_precise) {
        const std::uint64_t proportional = tree->precise_memory();
        outcome.peak_memory_bytes = std::max(outcome.peak_memory_bytes, proportional);
        if (proportional > launch.memory_limit_bytes) {
          outcome.memory_exceeded = true;
          break;
        }
        next_precise = now + std::chrono::seconds(1);
      }
    }
    pollfd fds[3];
    nfds_t count = 0;
    for (int i = 0; i < 3; ++i)
      if (open_fd[i]) fds[count++] = {read_fd[i], POLLIN, 0};
    const auto wait = std::min({deadline, next_scan}) - now;
    const int wait_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()) + 1;
    if (count > 0) poll(fds, count, std::min(wait_ms, 100));
    else usleep(20000);
    drain_all(1 << 20);  // bounded per round, so the limits are checked during a flood
    // A complete, authenticated frame is the job's end: the worker flushed its output before
    // writing it and has nothing left to do but exit, which with a CUDA context takes a while.
    if (outcome.channel_bytes.size() != checked_bytes) {
      checked_bytes = outcome.channel_bytes.size();
      outcome.delivered =
          decode_result_frame(outcome.channel_bytes, outcome.channel_key, nullptr).has_value();
    }
    const pid_t done = waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) exited = true;
  }
  take_phases(Clock::now());
  close_witness();
  // A worker that ended without a result while kbench is being stopped was, most likely, stopped
  // by the same signal: Slurm's scancel and a container stop signal every process of the job, not
  // only kbench. The job did not finish; it is not `crashed`, and --resume runs it again.
  if (exited && !outcome.delivered && interrupt_requested()) outcome.interrupted = true;
  // A worker that delivered is left to the background reaper (its exit takes long); the GPU
  // lock is taken for it before the kill, while the worker itself still holds it.
  const bool hand_over = outcome.delivered && !exited;
  const int gpu_lock = hand_over ? hold_gpu_lock_shared(launch.gpu_lock) : -1;
  // Kill the group in every case, then every other descendant (setsid escapees, orphans).
  kill(-pid, SIGKILL);
  if (hand_over) {
    drain_all(kChannelCap);  // what is already in the pipes; the reaper closes them
    std::vector<int> release(std::begin(read_fd), std::end(read_fd));
    if (gpu_lock >= 0) release.push_back(gpu_lock);
    BackgroundReaper::instance().reap(pid, std::move(tree), std::move(release));
    outcome.exit_code = 0;  // it wrote its frame, the last thing a worker does before _exit(0)
  } else {
    if (!exited) waitpid(pid, &wait_status, 0);
    tree->kill_all();
    // What the worker wrote before it ended; nothing is left that could keep writing.
    drain_all(kChannelCap);
    for (int fd : read_fd) close(fd);
    if (WIFEXITED(wait_status)) outcome.exit_code = WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) outcome.signal = WTERMSIG(wait_status);
  }
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  finish_output(launch, stdout_capture, stderr_capture, outcome);
  return outcome;
}

}  // namespace kbench
