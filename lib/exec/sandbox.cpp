#include "exec/sandbox.hpp"

#include "core/error.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sstream>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

extern char** environ;

// Landlock (Linux >= 5.13) through raw syscalls; the numbers are the kernel ABI, defined here in
// case the build machine's headers predate them.
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

namespace kbench {
namespace {

constexpr std::uint64_t kFsWriteFile = 1ull << 1;
constexpr std::uint64_t kFsRemoveDir = 1ull << 4;
constexpr std::uint64_t kFsRemoveFile = 1ull << 5;
constexpr std::uint64_t kFsMakeAll = 0x7full << 6;  // char, dir, reg, sock, fifo, block, sym
constexpr std::uint64_t kFsRefer = 1ull << 13;     // ABI 2
constexpr std::uint64_t kFsTruncate = 1ull << 14;  // ABI 3
constexpr std::uint64_t kNetBindTcp = 1ull << 0;   // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ull << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ull << 1;
constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};
struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

// Write-type accesses only: reads, execution and device ioctls (the GPU) stay unrestricted.
std::uint64_t handled_fs_access(int abi) {
  std::uint64_t access = kFsWriteFile | kFsRemoveDir | kFsRemoveFile | kFsMakeAll;
  if (abi >= 2) access |= kFsRefer;
  if (abi >= 3) access |= kFsTruncate;
  return access;
}

std::string errno_text(const std::string& step, int error) {
  return fmt::format("{} failed: {}", step, std::strerror(error));
}

// Child side: write `text` to a /proc/self file (async-signal-safe).
bool write_proc_file(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
  close(fd);
  return ok;
}

// 0, or the 1-based step that failed (errno tells why).
int enter_namespaces(const std::string& uid_map, const std::string& gid_map, bool pid = true) {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET | (pid ? CLONE_NEWPID : 0)) != 0) return 1;
  // The same uid and gid inside, so getuid() is unchanged and files keep their owner.
  if (!write_proc_file("/proc/self/setgroups", "deny")) return 2;
  if (!write_proc_file("/proc/self/uid_map", uid_map)) return 3;
  if (!write_proc_file("/proc/self/gid_map", gid_map)) return 4;
  return 0;
}

std::string id_map(unsigned id) { return fmt::format("{} {} 1\n", id, id); }

// Tries the namespaces in a throwaway child (and a grandchild, which is what the PID namespace
// needs to work), so the controller knows before any job whether results can claim isolation.
std::string probe_namespaces() {
  const std::string uid_map = id_map(getuid()), gid_map = id_map(getgid());
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno_text("pipe", errno);
  const pid_t pid = fork();
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    return errno_text("fork", errno);
  }
  if (pid == 0) {
    int failure[2] = {enter_namespaces(uid_map, gid_map), 0};
    failure[1] = errno;
    if (failure[0] == 0) {
      const pid_t inner = fork();
      if (inner == 0) _exit(0);
      if (inner < 0) failure[0] = 5, failure[1] = errno;
      else waitpid(inner, nullptr, 0);
    }
    (void)!write(report[1], failure, sizeof(failure));
    _exit(0);
  }
  close(report[1]);
  int failure[2] = {-1, 0};
  const bool got = read(report[0], failure, sizeof(failure)) == ssize_t(sizeof(failure));
  close(report[0]);
  waitpid(pid, nullptr, 0);
  if (!got) return "the namespace probe died";
  static const char* kSteps[] = {"", "unshare(CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWPID)",
                                 "writing /proc/self/setgroups", "writing /proc/self/uid_map",
                                 "writing /proc/self/gid_map", "fork in the new PID namespace"};
  if (failure[0] == 0) return "";
  return errno_text(kSteps[failure[0]], failure[1]) +
         " (unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone, "
         "user.max_user_namespaces, an AppArmor policy or a container's seccomp filter)";
}

// Threads of the real uid on the whole machine: what RLIMIT_NPROC counts.
long tasks_of_uid(uid_t uid) {
  long count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    std::string line;
    bool mine = false;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) mine = std::stoul(line.substr(4)) == uid;
      if (line.rfind("Threads:", 0) == 0 && mine) count += std::stol(line.substr(8));
    }
  }
  return count;
}

bool allowed_name(const std::string& name) {
  for (const auto& allowed : environment_allowlist()) {
    if (allowed.back() == '_' ? name.rfind(allowed, 0) == 0 : name == allowed) return true;
  }
  return false;
}

int make_ruleset(const std::filesystem::path& job_dir, int abi, bool block_tcp, bool scope) {
  RulesetAttr attr;
  attr.handled_access_fs = handled_fs_access(abi);
  if (block_tcp) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
  if (scope) attr.scoped = kScopeSignal | kScopeAbstractUnix;
  const std::size_t size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
  const int fd = int(syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (fd < 0) return -1;
  const std::uint64_t all = attr.handled_access_fs;
  // The job dir: anything. /dev: the GPU device nodes, /dev/null, /dev/shm (multiprocessing).
  // /proc: thread names and similar per-process knobs (Landlock already keeps the worker from
  // ptracing, hence from writing the memory of, processes outside its domain).
  const std::pair<std::filesystem::path, std::uint64_t> rules[] = {
      {job_dir, all}, {"/dev", all}, {"/proc", kFsWriteFile | (abi >= 3 ? kFsTruncate : 0)}};
  for (const auto& [path, access] : rules) {
    const int dir = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (dir < 0) continue;
    PathBeneathAttr rule{access, dir};
    const long added = syscall(SYS_landlock_add_rule, fd, kRulePathBeneath, &rule, 0);
    close(dir);
    if (added != 0) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

}  // namespace

const std::vector<std::string>& environment_allowlist() {
  // Locale, search paths, the GPU selection and driver/toolkit locations; nothing that usually
  // holds credentials (tokens, keys, cloud or proxy settings).
  static const std::vector<std::string> names = {
      "PATH", "LANG", "LANGUAGE", "LC_", "TZ", "TERM", "USER", "LOGNAME", "LD_LIBRARY_PATH",
      "PYTHONPATH", "VIRTUAL_ENV", "KBENCH_PYTHON", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
      "CUDA_HOME", "CUDA_PATH", "CUDA_MODULE_LOADING", "NVIDIA_", "TORCH_CUDA_ARCH_LIST",
      "TRITON_PTXAS_PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS"};
  return names;
}

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = [] {
    SandboxSupport s;
    s.namespaces_reason = probe_namespaces();
    s.namespaces = s.namespaces_reason.empty();
    const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
    if (abi > 0) {
      s.landlock_abi = int(abi);
    } else {
      s.landlock_reason = errno == ENOSYS ? "Landlock is not in this kernel (Linux >= 5.13 needed)"
                          : errno == EOPNOTSUPP
                              ? "Landlock is disabled (add it to the lsm= boot parameter)"
                              : errno_text("landlock_create_ruleset", errno);
    }
    return s;
  }();
  return support;
}

SandboxOptions sandbox_options_from_environment() {
  SandboxOptions options;
  const char* value = std::getenv("KBENCH_SANDBOX");
  std::stringstream words(value ? value : "");
  for (std::string word; std::getline(words, word, ',');) {
    if (word.empty()) continue;
    if (word == "no-namespaces") options.use_namespaces = false;
    else if (word == "no-landlock") options.use_landlock = false;
    else
      throw InputError("KBENCH_SANDBOX: unknown word '" + word +
                       "'; use a comma list of no-namespaces, no-landlock (docs/sandbox.md)");
  }
  return options;
}

nlohmann::json sandbox_report(const SandboxOptions& options) {
  const auto& support = sandbox_support();
  const bool namespaces = options.use_namespaces && support.namespaces;
  const bool landlock = options.use_landlock && support.landlock_abi > 0;
  nlohmann::json report = {{"network_isolation", namespaces},
                           {"filesystem_isolation", landlock},
                           {"pid_namespace", namespaces && options.use_pid_namespace}};
  if (!namespaces) {
    std::string why = options.use_namespaces ? support.namespaces_reason : "turned off";
    if (landlock && support.landlock_abi >= 4) why += "; TCP bind/connect blocked by Landlock";
    report["network_reason"] = why;
  }
  if (!landlock)
    report["filesystem_reason"] = options.use_landlock ? support.landlock_reason : "turned off";
  return report;
}

Sandbox::Sandbox(const std::filesystem::path& job_dir,
                 const std::map<std::string, std::string>& extra_env, const SandboxOptions& options) {
  const auto& support = sandbox_support();
  namespaces_ = options.use_namespaces && support.namespaces;
  pid_namespace_ = namespaces_ && options.use_pid_namespace;
  const auto dir = std::filesystem::absolute(job_dir);
  // Private caches: a cache shared between jobs would let one candidate plant compiled code
  // (an Inductor or Triton artifact) that a later baseline or candidate loads.
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    const std::string item = *entry;
    const auto eq = item.find('=');
    if (eq != std::string::npos && allowed_name(item.substr(0, eq)))
      env[item.substr(0, eq)] = item.substr(eq + 1);
  }
  const std::map<std::string, std::string> private_dirs = {
      {"HOME", "home"},
      {"TMPDIR", "tmp"},
      {"XDG_CACHE_HOME", "cache"},
      {"XDG_CONFIG_HOME", "home/.config"},
      {"TRITON_HOME", "home"},
      {"TRITON_CACHE_DIR", "cache/triton"},
      {"TORCHINDUCTOR_CACHE_DIR", "cache/inductor"},
      {"TORCH_EXTENSIONS_DIR", "cache/torch_extensions"},
      {"CUDA_CACHE_PATH", "cache/nv"},
      {"MPLCONFIGDIR", "cache/matplotlib"},
      {"PYTHONPYCACHEPREFIX", "cache/pycache"}};
  for (const auto& [name, sub] : private_dirs) {
    std::filesystem::create_directories(dir / sub);
    env[name] = (dir / sub).string();
  }
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  for (const auto& [name, value] : extra_env) env[name] = value;
  for (const auto& [name, value] : env) env_.push_back(name + "=" + value);
  for (auto& item : env_) envp_.push_back(item.data());
  envp_.push_back(nullptr);

  // Never above the current hard limits: raising them would fail in the child.
  rlimit current{};
  getrlimit(RLIMIT_FSIZE, &current);
  file_size_limit_ = std::min<std::uint64_t>(options.file_size_limit_bytes, current.rlim_max);
  getrlimit(RLIMIT_NPROC, &current);
  nproc_limit_ = long(std::min<std::uint64_t>(tasks_of_uid(getuid()) + options.process_margin,
                                              current.rlim_max));
  uid_map_ = id_map(getuid());
  gid_map_ = id_map(getgid());
  if (options.use_landlock && support.landlock_abi > 0) {
    ruleset_fd_ = make_ruleset(dir, support.landlock_abi,
                               /*block_tcp=*/!namespaces_ && support.landlock_abi >= 4,
                               /*scope=*/support.landlock_abi >= 6);
    if (ruleset_fd_ < 0)
      throw std::runtime_error(errno_text("building the Landlock ruleset", errno));
  }
}

Sandbox::~Sandbox() {
  if (ruleset_fd_ >= 0) close(ruleset_fd_);
}

bool Sandbox::enter() const noexcept {
  const rlimit no_core{0, 0};
  const rlimit fsize{file_size_limit_, file_size_limit_};
  const rlimit nproc{rlim_t(nproc_limit_), rlim_t(nproc_limit_)};
  if (setrlimit(RLIMIT_CORE, &no_core) != 0 || setrlimit(RLIMIT_FSIZE, &fsize) != 0 ||
      setrlimit(RLIMIT_NPROC, &nproc) != 0)
    return false;
  return !namespaces_ || enter_namespaces(uid_map_, gid_map_, pid_namespace_) == 0;
}

bool Sandbox::restrict_filesystem() const noexcept {
  if (ruleset_fd_ < 0) return true;
  // Landlock requires no_new_privs (or CAP_SYS_ADMIN); it also keeps setuid binaries inert.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_landlock_restrict_self, ruleset_fd_, 0) == 0;
}

}  // namespace kbench
