#include "exec/lock_wait.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbench {

bool blocked_on_lock(const std::vector<pid_t>& pids, const std::filesystem::path& file) {
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) return false;
  // /proc/locks names a file as "MAJOR:MINOR:INODE" (hex device numbers, fs/locks.c).
  const std::string id = fmt::format("{:02x}:{:02x}:{}", major(info.st_dev), minor(info.st_dev),
                                     static_cast<unsigned long>(info.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    // Waiters: "2: -> FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
    std::istringstream fields(line);
    std::string number, arrow, type, kind, access, owner, where;
    if (!(fields >> number >> arrow) || arrow != "->") continue;
    if (!(fields >> type >> kind >> access >> owner >> where) || type != "FLOCK") continue;
    if (where != id) continue;
    for (const pid_t pid : pids)
      if (owner == std::to_string(pid)) return true;
  }
  return false;
}

}  // namespace kbench
