// sbatch is run directly (fork + execvp, no shell), so no path is ever re-parsed by a shell.
#include "cluster/sbatch_submit.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "core/error.hpp"

namespace kbench {
namespace {

struct Captured {
  int exit_code = -1;
  std::string out, err;
};

std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) text.append(buffer, std::size_t(n));
    else if (n == 0 || errno != EINTR) break;
  }
  close(fd);
  return text;
}

Captured run_captured(std::vector<std::string> argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
    throw Error(kExitInternal, fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) throw Error(kExitInternal, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]), close(out_pipe[1]), close(err_pipe[0]), close(err_pipe[1]);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  Captured c;
  // sbatch prints a line or two; stderr is small enough not to fill its pipe while stdout drains.
  c.out = drain(out_pipe[0]);
  c.err = drain(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

}  // namespace

std::string sbatch(const std::filesystem::path& script, const std::optional<std::string>& after_any) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (after_any) argv.push_back("--dependency=afterany:" + *after_any);
  argv.push_back(script.string());
  const Captured c = run_captured(argv);
  if (c.exit_code == 127)
    throw EnvironmentError("sbatch: not found on PATH; run `kbench slurm` without --submit on a machine "
                           "without Slurm and submit the written scripts where sbatch exists");
  if (c.exit_code != 0)
    throw EnvironmentError(fmt::format("sbatch {} failed (exit {}): {}", script.string(), c.exit_code,
                                       c.err.empty() ? c.out : c.err));
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  std::string id = c.out.substr(0, c.out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw EnvironmentError(fmt::format("sbatch {}: unexpected reply '{}'", script.string(), c.out));
  return id;
}

SubmittedJobs submit_plan(const std::filesystem::path& array_script,
                          const std::filesystem::path& merge_script) {
  SubmittedJobs jobs;
  jobs.array_job = sbatch(array_script, std::nullopt);
  jobs.merge_job = sbatch(merge_script, jobs.array_job);
  return jobs;
}

}  // namespace kbench
