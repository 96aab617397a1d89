#include "exec/process_tree.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kbench {
namespace {

struct ProcStat {
  pid_t pid = 0, ppid = 0;
  std::string name;  // comm
  char state = '?';
  unsigned long long start_time = 0;
  std::uint64_t anon_rss_pages = 0;
};

// Roots of the workers running now: their own trees, never "orphans" for another job.
std::mutex g_roots_mutex;
std::set<pid_t> g_roots;

bool read_stat(pid_t pid, ProcStat& out) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return false;
  // The command name (field 2) may hold spaces and parentheses; fields resume after the last ')'.
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.name = line.substr(open + 1, close - open - 1);
  std::istringstream fields(line.substr(close + 2));
  std::string skip;
  fields >> out.state >> out.ppid;
  for (int field = 5; field < 22; ++field) fields >> skip;
  fields >> out.start_time;
  out.pid = pid;
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0, shared = 0;
  if (statm >> size >> resident >> shared) out.anon_rss_pages = resident > shared ? resident - shared : 0;
  return true;
}

std::vector<ProcStat> all_processes() {
  std::vector<ProcStat> out;
  DIR* dir = opendir("/proc");
  if (!dir) return out;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    ProcStat stat;
    if (read_stat(pid_t(pid), stat)) out.push_back(stat);
  }
  closedir(dir);
  return out;
}

std::uint64_t pss_bytes(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string key;
  std::uint64_t kib = 0;
  while (file >> key) {
    if (key == "Pss:") {
      file >> kib;
      return kib * 1024;
    }
    file.ignore(1 << 12, '\n');
  }
  return 0;
}

// Every process below `root` in `processes` by parent links, parents before their children.
std::vector<const ProcStat*> below(pid_t root, const std::vector<ProcStat>& processes) {
  std::multimap<pid_t, const ProcStat*> children;
  for (const auto& p : processes) children.emplace(p.ppid, &p);
  std::vector<const ProcStat*> out;
  std::vector<pid_t> parents = {root};
  for (std::size_t i = 0; i < parents.size(); ++i) {
    const auto [begin, end] = children.equal_range(parents[i]);
    for (auto it = begin; it != end; ++it) {
      out.push_back(it->second);
      parents.push_back(it->second->pid);  // a zombie's children are below root until reparented
    }
  }
  return out;
}

}  // namespace

std::vector<pid_t> live_descendants(pid_t root) {
  const auto processes = all_processes();  // below() points into it
  std::vector<pid_t> out = {root};
  for (const ProcStat* p : below(root, processes)) out.push_back(p->pid);
  return out;
}

std::map<pid_t, std::string> running_descendants(pid_t root) {
  const auto processes = all_processes();
  std::map<pid_t, std::string> out;
  for (const ProcStat* p : below(root, processes))
    if (p->state != 'Z' && p->state != 'X' && p->state != 'x') out[p->pid] = p->name;
  return out;
}

std::vector<pid_t> ProcessTree::pids() const {
  std::vector<pid_t> pids = {root_};
  for (const auto& [pid, start] : tracked_)
    if (pid != root_) pids.push_back(pid);
  return pids;
}

void protect_controller() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Orphans of a candidate are reparented here instead of to init, where kill_all finds them.
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    // /proc/<pid>/environ and /proc/<pid>/mem need ptrace access, which same-uid processes lose
    // once we are non-dumpable: a candidate cannot read the controller's API keys there.
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    // A worker that dies before reading its key must not take the controller with it (EPIPE).
    signal(SIGPIPE, SIG_IGN);
  });
}

std::unique_lock<std::mutex> ProcessTree::registry_lock() {
  return std::unique_lock<std::mutex>(g_roots_mutex);
}

ProcessTree::ProcessTree(pid_t root, std::unique_lock<std::mutex> registry) : root_(root) {
  g_roots.insert(root);
  registry.unlock();
}

ProcessTree::ProcessTree(pid_t root) : ProcessTree(root, registry_lock()) {}

ProcessTree::~ProcessTree() {
  std::lock_guard<std::mutex> lock(g_roots_mutex);
  g_roots.erase(root_);
}

std::uint64_t ProcessTree::scan() {
  // The listing and the roots under one lock: a child forked but not yet registered is either
  // absent from the listing or already a root (registry_lock).
  std::set<pid_t> roots;
  std::vector<ProcStat> processes;
  {
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    processes = all_processes();
    roots = g_roots;
  }
  const pid_t self = getpid();
  std::map<pid_t, const ProcStat*> by_pid;
  for (const auto& p : processes) by_pid[p.pid] = &p;
  // Drop tracked pids that died (or were reused by an unrelated process).
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    const auto found = by_pid.find(it->first);
    if (found == by_pid.end() || found->second->start_time != it->second) it = tracked_.erase(it);
    else ++it;
  }
  if (by_pid.count(root_)) tracked_[root_] = by_pid[root_]->start_time;
  // Children of tracked processes, and the controller's adopted orphans (its children that are
  // not a worker root), until nothing new turns up.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& p : processes) {
      if (tracked_.count(p.pid)) continue;
      const bool adopted = p.ppid == self && !roots.count(p.pid);
      if (adopted || tracked_.count(p.ppid)) {
        tracked_[p.pid] = p.start_time;
        grew = true;
      }
    }
  }
  std::uint64_t pages = 0;
  for (const auto& [pid, start] : tracked_) pages += by_pid[pid]->anon_rss_pages;
  return pages * std::uint64_t(sysconf(_SC_PAGESIZE));
}

std::uint64_t ProcessTree::precise_memory() const {
  std::uint64_t total = 0;
  for (const auto& [pid, start] : tracked_) total += pss_bytes(pid);
  return total;
}

void ProcessTree::kill_all() {
  for (int round = 0; round < 100; ++round) {
    scan();
    bool alive = false;
    for (const auto& [pid, start] : tracked_) {
      ProcStat stat;
      if (!read_stat(pid, stat) || stat.start_time != start) continue;
      if (stat.state != 'Z') {
        kill(pid, SIGKILL);
        alive = true;
      }
      // Reap it when it is ours (an adopted orphan); others are reaped by their parents.
      if (stat.ppid == getpid() && pid != root_) waitpid(pid, nullptr, WNOHANG);
    }
    if (!alive) break;
    usleep(10000);
  }
  for (const auto& [pid, start] : tracked_)
    if (pid != root_) waitpid(pid, nullptr, WNOHANG);
}

}  // namespace kbench
