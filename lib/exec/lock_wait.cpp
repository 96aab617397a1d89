#include "exec/lock_wait.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace kbench {
namespace {

// One flock() line of /proc/locks on `file`, holder or waiter.
struct FlockLine {
  bool waiter = false;
  bool exclusive = false;
  pid_t pid = 0;
};

void for_each_flock(const std::filesystem::path& file, const std::function<void(const FlockLine&)>& visit) {
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) return;
  // /proc/locks names a file as "MAJOR:MINOR:INODE" (hex device numbers, fs/locks.c).
  const std::string id = fmt::format("{:02x}:{:02x}:{}", major(info.st_dev), minor(info.st_dev),
                                     static_cast<unsigned long>(info.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    // Holders: "1: FLOCK  ADVISORY  READ  1234 fd:01:5678 0 EOF"
    // Waiters: "2: -> FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
    std::istringstream fields(line);
    std::string number, type, kind, access, owner, where;
    if (!(fields >> number >> type)) continue;
    FlockLine flock;
    if (type == "->") {
      flock.waiter = true;
      if (!(fields >> type)) continue;
    }
    if (type != "FLOCK" || !(fields >> kind >> access >> owner >> where) || where != id) continue;
    flock.exclusive = access == "WRITE";
    try {
      flock.pid = static_cast<pid_t>(std::stol(owner));
    } catch (const std::exception&) {
      continue;  // "-1": an open file description no process is named for
    }
    visit(flock);
  }
}

}  // namespace

bool blocked_on_lock(const std::vector<pid_t>& pids, const std::filesystem::path& file) {
  bool blocked = false;
  for_each_flock(file, [&](const FlockLine& flock) {
    if (!flock.waiter) return;
    for (const pid_t pid : pids) blocked = blocked || flock.pid == pid;
  });
  return blocked;
}

std::vector<FlockHolder> flock_holders(const std::filesystem::path& file) {
  std::vector<FlockHolder> holders;
  for_each_flock(file, [&](const FlockLine& flock) {
    if (!flock.waiter) holders.push_back({flock.pid, flock.exclusive});
  });
  return holders;
}

}  // namespace kbench
