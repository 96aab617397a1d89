#pragma once
// What a worker may touch (docs/sandbox.md): a scrubbed environment, private cache and temp
// dirs inside its job dir, rlimits, no network and no view of the controller (user + network +
// PID namespaces), and no writes outside the job dir (Landlock). Everything that allocates is
// prepared in the parent; the child-side calls are async-signal-safe syscalls, because the
// controller may have threads when it forks.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

// What this kernel lets an unprivileged process do; probed once per controller.
struct SandboxSupport {
  bool namespaces = false;  // user + network + PID namespaces
  std::string namespaces_reason;  // why not, when not
  int landlock_abi = 0;  // 0: no Landlock
  std::string landlock_reason;
};
const SandboxSupport& sandbox_support();

struct SandboxOptions {
  bool use_namespaces = true;  // when the kernel allows them
  bool use_landlock = true;
  // The CUDA driver fails in a new PID namespace (cudaGetDeviceCount: error 304, "OS call failed",
  // seen on the H200 machine), so CUDA jobs run without one: user + network namespaces only, and
  // the controller's descendant sweep instead of the namespace's init (docs/sandbox.md).
  bool use_pid_namespace = true;
  std::uint64_t file_size_limit_bytes = 4ull << 30;  // RLIMIT_FSIZE
  // RLIMIT_NPROC counts every task (thread) of the uid; the limit is today's count plus this, so
  // torch's and Inductor's thread and process pools still fit.
  long process_margin = 1024;
};

// The defaults, minus what KBENCH_SANDBOX switches off: a comma list of `no-namespaces`,
// `no-landlock` (for machines where a layer breaks the GPU driver; docs/sandbox.md). Unknown
// words throw InputError.
SandboxOptions sandbox_options_from_environment();

// The isolation a job actually ran with: {"network_isolation": bool, "network_reason": ...,
// "filesystem_isolation": bool, "filesystem_reason": ..., "pid_namespace": bool}.
nlohmann::json sandbox_report(const SandboxOptions& options);

class Sandbox {
 public:
  // `extra_env` (controller-chosen variables) is added after the allowlisted ones. Creates the
  // private dirs under `job_dir`.
  Sandbox(const std::filesystem::path& job_dir, const std::map<std::string, std::string>& extra_env,
          const SandboxOptions& options);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  char* const* envp() const { return envp_.data(); }
  bool uses_namespaces() const { return namespaces_; }
  bool uses_pid_namespace() const { return pid_namespace_; }

  // Child side, async-signal-safe. In the forked child: rlimits, then (when namespaces are used)
  // unshare user+net+PID namespaces mapping the same uid/gid. False when a step failed.
  bool enter() const noexcept;
  // Just before execve, in the process that becomes the worker: Landlock. False on failure.
  bool restrict_filesystem() const noexcept;

 private:
  std::vector<std::string> env_;
  std::vector<char*> envp_;
  bool namespaces_ = false;
  bool pid_namespace_ = false;
  int ruleset_fd_ = -1;
  std::uint64_t file_size_limit_ = 0;
  long nproc_limit_ = 0;
  std::string uid_map_, gid_map_;
};

// The variables the worker inherits from the controller (exact names, and prefixes ending in _).
const std::vector<std::string>& environment_allowlist();

}  // namespace kbench
