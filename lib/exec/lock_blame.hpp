#pragma once
// What a job waited on, when it waited for the per-GPU lock: the seconds it spent blocked while
// each other holder held the lock, by name ("02_softmax/x.py (shared)"). A run slowed by lock
// waits then names the job (and mode) it queued behind, also when that job is later killed and
// reports nothing itself. Holders and waits are read from /proc/locks by the controller
// (lock_wait.hpp); only the phase in a holder's name is the worker's own word.
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "exec/lock_wait.hpp"

namespace kbench {

// The names of the processes that may hold a GPU lock: each running worker by its job, and this
// process (which holds it for workers whose CUDA context is being torn down).
class LockHolderNames {
 public:
  static LockHolderNames& instance();
  void add(pid_t pid, std::string name);
  void remove(pid_t pid);
  // The worker's evaluation phase when it last took or changed its lock (its `lock` line,
  // result_channel.hpp: the worker says it, so it is a diagnosis, not evidence), or started or
  // ended an extension build or the candidate's import; named after it.
  void set_phase(pid_t pid, std::string phase);
  // "<name> in <phase>"; "pid N" when unknown; "<name> (exiting)" for a worker removed lately.
  [[nodiscard]] std::string name_of(pid_t pid) const;
  // Other jobs waited `seconds` while `pid` held the lock (LockBlame::poll, once per waiter).
  void charge(pid_t pid, double seconds);
  // The seconds charged to the workers named `job` or `job [role]`, forgotten once read: what
  // a job killed at a deadline cost the rest, said when it is stopped.
  double take_charged(const std::string& job);
  // Where the job's workers were, running or lately ended: "[candidate] in extension_build for
  // 180 s, [reference] ended in setup after 9 s"; empty when none said a phase. Said when a job is
  // stopped at a deadline, which otherwise reports nothing of what it was doing.
  [[nodiscard]] std::string whereabouts(const std::string& job) const;

 private:
  mutable std::mutex mutex_;
  struct Named {
    std::string name, phase;
    std::chrono::steady_clock::time_point phase_since;
    double phase_s_at_end = 0;  // set when the worker is removed
  };
  std::map<pid_t, Named> names_;
  // Workers removed lately, still holding the lock while their process exits (a CUDA context's
  // teardown); the last kEnded, so a long-lived service does not grow.
  std::deque<std::pair<pid_t, Named>> ended_;
  std::map<std::string, double> charged_;  // by worker name
  static constexpr std::size_t kEnded = 64;
};

// Registers a worker's name for its lifetime.
class NamedLockHolder {
 public:
  NamedLockHolder(pid_t pid, std::string name) : pid_(pid) { LockHolderNames::instance().add(pid, std::move(name)); }
  ~NamedLockHolder() { LockHolderNames::instance().remove(pid_); }
  NamedLockHolder(const NamedLockHolder&) = delete;
  NamedLockHolder& operator=(const NamedLockHolder&) = delete;

 private:
  pid_t pid_;
};

// One job's waits: polled by the worker's watchdog (WorkerLaunch::waiting) with whether the job
// is blocked now and the lock's and its gate's state as it read them (lock_wait.hpp); each
// blocked interval is charged to the lock's holders at that moment (the gate's, a timer queued
// ahead, when the lock itself has none), except `own` (the job's processes). Thread-safe: the
// job's workers may be polled from several threads.
class LockBlame {
 public:
  void poll(bool blocked, const std::vector<pid_t>& own, const FlockState& lock, const FlockState& gate);
  // {holder: seconds}, the `top` largest (at least 0.1 s each); null when nothing was charged.
  [[nodiscard]] nlohmann::json json(std::size_t top = 5) const;
  // The seconds the job was seen blocked (each counted once, whoever held the lock).
  [[nodiscard]] double waited_s() const;

 private:
  mutable std::mutex mutex_;
  std::optional<std::chrono::steady_clock::time_point> last_;
  std::map<std::string, double> seconds_;
  double waited_s_ = 0;
};

}  // namespace kbench
