#include "exec/lock_wait.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbench {
namespace {

// /proc/locks names a file as "MAJOR:MINOR:INODE" (hex device numbers, fs/locks.c); "" when
// there is no such file.
std::string lock_id(const std::filesystem::path& file) {
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) return "";
  return fmt::format("{:02x}:{:02x}:{}", major(info.st_dev), minor(info.st_dev), static_cast<unsigned long>(info.st_ino));
}

}  // namespace

bool FlockState::waited_by(const std::vector<pid_t>& pids) const {
  return std::any_of(waiters.begin(), waiters.end(),
                     [&](pid_t waiter) { return std::find(pids.begin(), pids.end(), waiter) != pids.end(); });
}

std::vector<FlockState> flock_states(const std::vector<std::filesystem::path>& files) {
  std::vector<FlockState> states(files.size());
  std::vector<std::string> ids;
  for (const auto& file : files) ids.push_back(lock_id(file));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    // Holders: "1: FLOCK  ADVISORY  READ  1234 fd:01:5678 0 EOF"
    // Waiters: "2: -> FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
    std::istringstream fields(line);
    std::string number, type, kind, access, owner, where;
    if (!(fields >> number >> type)) continue;
    const bool waiter = type == "->";
    if (waiter && !(fields >> type)) continue;
    if (type != "FLOCK" || !(fields >> kind >> access >> owner >> where)) continue;
    pid_t pid = 0;
    try {
      pid = static_cast<pid_t>(std::stol(owner));
    } catch (const std::exception&) {
      continue;  // "-1": an open file description no process is named for
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (ids[i] != where) continue;
      if (waiter) states[i].waiters.push_back(pid);
      else states[i].holders.push_back({pid, access == "WRITE"});
    }
  }
  return states;
}

}  // namespace kbench
