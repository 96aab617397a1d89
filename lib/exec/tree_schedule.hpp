#pragma once
// What the kernel's scheduler did to a worker's process tree over the timing witness's window
// (exec/timing_witness.hpp): on a loaded host the window also holds the time the tree's tasks
// waited, runnable, for a CPU that other work held. The controller reads it from
// /proc/PID/task/TID/schedstat (nanoseconds), which no task of the tree can write.
#include <sys/types.h>

#include <set>

namespace kbench {

struct TreeSchedule {
  std::set<pid_t> tasks;  // every thread of every live process of the tree
  double cpu_s = 0;       // their time on a CPU (sum_exec_runtime)
  double wait_s = 0;      // their time runnable but not running (run_delay)
  bool ok = false;
};

// The tree below `root` (the root included), now.
TreeSchedule sample_tree_schedule(pid_t root);

// How much of a window of `window_s` other work on the host took from the tree: the tasks' wait,
// but at most the window less the CPU they used, since the tree's own threads (run in turn or in
// parallel) cannot both compute and be owed the time; and nothing when a task came or went
// during the window (an exited thread's CPU is no longer in the sum) or a sample failed. What is
// left of the window, window - host_wait, is at least the CPU work the tree did in it.
double host_wait_s(const TreeSchedule& start, const TreeSchedule& end, double window_s);

}  // namespace kbench
