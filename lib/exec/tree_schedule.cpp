#include "exec/tree_schedule.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "exec/process_tree.hpp"

namespace kbench {

TreeSchedule sample_tree_schedule(pid_t root) {
  TreeSchedule out;
  out.ok = true;
  for (const pid_t pid : live_descendants(root)) {
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    DIR* dir = opendir(tasks.c_str());
    if (!dir) continue;  // gone since the listing: its CPU is out of the sums, so is its wait
    while (const dirent* entry = readdir(dir)) {
      char* end = nullptr;
      const long tid = std::strtol(entry->d_name, &end, 10);
      if (*end != '\0' || tid <= 0) continue;
      std::ifstream stat(tasks + "/" + entry->d_name + "/schedstat");
      unsigned long long on_cpu_ns = 0, waited_ns = 0;
      if (!(stat >> on_cpu_ns >> waited_ns)) {
        out.ok = false;  // no schedstat (kernel without schedstats): no credit
        continue;
      }
      out.tasks.insert(pid_t(tid));
      out.cpu_s += double(on_cpu_ns) * 1e-9;
      out.wait_s += double(waited_ns) * 1e-9;
    }
    closedir(dir);
  }
  out.ok = out.ok && !out.tasks.empty();
  return out;
}

double host_wait_s(const TreeSchedule& start, const TreeSchedule& end, double window_s) {
  if (!start.ok || !end.ok || start.tasks != end.tasks) return 0;
  const double waited = end.wait_s - start.wait_s;
  const double used = end.cpu_s - start.cpu_s;
  return std::max(0.0, std::min(waited, window_s - used));
}

}  // namespace kbench
