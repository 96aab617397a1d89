#include "cache/bytecode_cache.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "cache/extension_cache.hpp"  // kbench_cache_root
#include "core/worker_python.hpp"

extern char** environ;

namespace kbench {
namespace fs = std::filesystem;
namespace {

// Run by the workers' interpreter with PYTHONPYCACHEPREFIX set to the cache: the stamp names the
// interpreter (several may share the cache: each .pyc's name carries its Python's tag).
constexpr const char* kFillScript = R"PY(
import compileall, hashlib, json, os, sys
prefix = sys.pycache_prefix
dirs = [p for p in sys.path if p and os.path.isdir(p)]

def stamp_of(d):
    out = [os.stat(d).st_mtime_ns]
    with os.scandir(d) as entries:
        out += sorted(e.stat().st_mtime_ns for e in entries if e.is_dir())
    return out

state = {"python": sys.executable, "version": sys.version, "dirs": {d: stamp_of(d) for d in dirs}}
stamp = os.path.join(prefix, "filled-" + hashlib.sha256(sys.executable.encode()).hexdigest()[:16] + ".json")
try:
    with open(stamp) as f:
        if json.load(f) == state:
            print("fresh")
            sys.exit(0)
except (OSError, ValueError):
    pass
for d in dirs:
    compileall.compile_dir(d, quiet=2, workers=0)  # files that do not compile are left to Python
tmp = f"{stamp}.{os.getpid()}"
with open(tmp, "w") as f:
    json.dump(state, f)
os.replace(tmp, stamp)
print("filled")
)PY";

}  // namespace

fs::path BytecodeCache::default_dir() { return kbench_cache_root() / "pycache"; }

bool BytecodeCache::enabled_by_environment() {
  const char* value = std::getenv("KBENCH_BYTECODE_CACHE");
  return !(value && (std::strcmp(value, "off") == 0 || std::strcmp(value, "0") == 0));
}

BytecodeCacheFill BytecodeCache::fill(const fs::path& dir, const std::string& python) {
  const auto started = std::chrono::steady_clock::now();
  BytecodeCacheFill out;
  out.dir = dir;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    out.message = fmt::format("cannot create {}: {}", dir.string(), error.message());
    return out;
  }
  // The controller's environment (PYTHONPATH included: it is on the workers' sys.path too),
  // with the cache as the prefix and writing allowed.
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    const std::string item = *entry;
    if (item.rfind("PYTHONPYCACHEPREFIX=", 0) == 0 || item.rfind("PYTHONDONTWRITEBYTECODE=", 0) == 0) continue;
    env.push_back(item);
  }
  env.push_back("PYTHONPYCACHEPREFIX=" + fs::absolute(dir).string());
  std::vector<char*> envp;
  for (auto& item : env) envp.push_back(item.data());
  envp.push_back(nullptr);
  const fs::path log = dir / "fill.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string flag = "-c", script = kFillScript, program = python;
  char* argv[] = {program.data(), flag.data(), script.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    out.message = fmt::format("cannot start {}: {}", python, std::strerror(spawned));
    return out;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream said;
  said << std::ifstream(log).rdbuf();
  const std::string text = said.str();
  out.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  out.filled = text.find("filled") != std::string::npos;
  if (!out.ok) out.message = fmt::format("{} failed to fill it (see {})", python, log.string());
  return out;
}

const BytecodeCacheFill& BytecodeCache::shared() {
  static std::once_flag once;
  static BytecodeCacheFill outcome;
  std::call_once(once, [] {
    if (!enabled_by_environment()) {
      outcome.message = "KBENCH_BYTECODE_CACHE=off";
      return;
    }
    outcome = fill(default_dir(), python_executable());
  });
  return outcome;
}

}  // namespace kbench
