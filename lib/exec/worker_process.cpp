#include "exec/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/text.hpp"
#include "exec/interrupt.hpp"

extern char** environ;

namespace kbench {
namespace {

constexpr int kChildResultFd = 3;
constexpr std::size_t kOutputTailBytes = 8192;

std::string read_tail(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return tail_of(buffer.str(), kOutputTailBytes);
}

std::vector<std::string> build_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    const std::string item = *entry;
    const auto name = item.substr(0, item.find('='));
    if (!extra.count(name)) env.push_back(item);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const std::vector<char*>& envp,
                             const char* exe, const char* cwd, int out_fd, int err_fd,
                             int result_fd, pid_t controller) {
  setpgid(0, 0);
  // Die with the controller (even on its SIGKILL), so `kbench run --resume` never races an
  // orphaned worker of the killed run. The thread that forked must outlive the worker.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != controller) _exit(127);  // it died before prctl took effect
  if (chdir(cwd) != 0) _exit(127);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  dup2(result_fd, kChildResultFd);  // dup2 clears FD_CLOEXEC on the copy
  // Everything else the controller has open stays behind.
  for (int fd = kChildResultFd + 1; fd < 1024; ++fd) close(fd);
  execve(exe, argv.data(), envp.data());
  _exit(127);
}

}  // namespace

std::filesystem::path self_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

WorkerOutcome run_worker_process(const WorkerLaunch& launch) {
  std::filesystem::create_directories(launch.work_dir);
  const auto exe = (launch.executable.empty() ? self_executable() : launch.executable).string();
  std::vector<std::string> args = {exe};
  args.insert(args.end(), launch.args.begin(), launch.args.end());
  args.push_back("--result-fd");
  args.push_back(std::to_string(kChildResultFd));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  auto env = build_environment(launch.env);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const auto out_path = launch.work_dir / "stdout.log";
  const auto err_path = launch.work_dir / "stderr.log";
  const std::string cwd = launch.work_dir.string();

  int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int pipe_fds[2];
  if (out_fd < 0 || err_fd < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot set up a worker");

  const auto started = std::chrono::steady_clock::now();
  auto deadline = started + std::chrono::duration<double>(launch.timeout_s);
  const auto max_deadline = deadline + std::chrono::duration<double>(launch.timeout_s);
  auto last_poll = started;
  const pid_t controller = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) exec_child(argv, envp, exe.c_str(), cwd.c_str(), out_fd, err_fd, pipe_fds[1], controller);
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
  close(pipe_fds[1]);
  close(out_fd);
  close(err_fd);

  WorkerOutcome outcome;
  bool open_pipe = true;
  int wait_status = 0;
  bool exited = false;
  char buffer[65536];
  while (!exited) {
    const auto now = std::chrono::steady_clock::now();
    // Time spent waiting for a lock another job holds moves the deadline (bounded).
    if (launch.waiting && launch.waiting(pid))
      deadline = std::min(max_deadline, deadline + (now - last_poll));
    last_poll = now;
    if (kill_requested()) {  // the second Ctrl-C; the first lets the job finish
      outcome.interrupted = true;
      break;
    }
    if (now >= deadline) {
      outcome.timed_out = true;
      break;
    }
    const int remaining_ms = int(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    if (open_pipe) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      const int ready = poll(&p, 1, std::min(remaining_ms, 200));
      if (ready > 0) {
        const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
        if (n > 0) {
          // The frame is small; a candidate flooding the pipe cannot grow memory unboundedly.
          if (outcome.channel_bytes.size() < (64u << 20)) outcome.channel_bytes.append(buffer, n);
        } else if (n == 0 || (n < 0 && errno != EINTR)) {
          open_pipe = false;
        }
      }
    } else {
      usleep(20000);
    }
    const pid_t done = waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) exited = true;
  }
  // Kill the group in every case: stragglers the candidate forked must not outlive the job.
  kill(-pid, SIGKILL);
  if (!exited) waitpid(pid, &wait_status, 0);
  // Drain what the worker wrote before exiting; non-blocking, since a grandchild that escaped
  // the group could still hold the pipe open.
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  for (ssize_t n; open_pipe && (n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0;)
    outcome.channel_bytes.append(buffer, n);
  close(pipe_fds[0]);

  outcome.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (WIFEXITED(wait_status)) outcome.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) outcome.signal = WTERMSIG(wait_status);
  outcome.stdout_text = read_tail(out_path);
  outcome.stderr_text = read_tail(err_path);
  return outcome;
}

}  // namespace kbench
