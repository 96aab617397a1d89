#include "exec/lock_blame.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace kbench {
namespace {

// `name` is the job's worker: named `job`, or `job [role]` when placed apart.
bool worker_of(const std::string& name, const std::string& job) {
  return name == job || name.rfind(job + " [", 0) == 0;
}

}  // namespace

LockHolderNames& LockHolderNames::instance() {
  static LockHolderNames names;
  return names;
}

void LockHolderNames::add(pid_t pid, std::string name) {
  const std::lock_guard guard(mutex_);
  names_[pid] = Named{std::move(name), "", std::chrono::steady_clock::now()};
}

void LockHolderNames::set_phase(pid_t pid, std::string phase) {
  const std::lock_guard guard(mutex_);
  const auto found = names_.find(pid);
  if (found == names_.end() || found->second.phase == phase) return;
  found->second.phase = std::move(phase);
  found->second.phase_since = std::chrono::steady_clock::now();
}

void LockHolderNames::remove(pid_t pid) {
  const std::lock_guard guard(mutex_);
  const auto found = names_.find(pid);
  if (found == names_.end()) return;
  found->second.phase_s_at_end =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - found->second.phase_since).count();
  ended_.emplace_back(pid, std::move(found->second));
  if (ended_.size() > kEnded) ended_.pop_front();
  names_.erase(found);
}

std::string LockHolderNames::name_of(pid_t pid) const {
  if (pid == getpid()) return "kbench (an exiting worker's teardown)";
  const std::lock_guard guard(mutex_);
  const auto found = names_.find(pid);
  if (found != names_.end())
    return found->second.phase.empty() ? found->second.name : found->second.name + " in " + found->second.phase;
  for (auto ended = ended_.rbegin(); ended != ended_.rend(); ++ended)
    if (ended->first == pid) return ended->second.name + " (exiting)";
  return "pid " + std::to_string(pid);
}

void LockHolderNames::charge(pid_t pid, double seconds) {
  const std::lock_guard guard(mutex_);
  const auto found = names_.find(pid);
  if (found != names_.end()) charged_[found->second.name] += seconds;
}

double LockHolderNames::take_charged(const std::string& job) {
  const std::lock_guard guard(mutex_);
  double seconds = 0;
  for (auto it = charged_.begin(); it != charged_.end();) {
    const bool ours = worker_of(it->first, job);
    if (ours) seconds += it->second;
    it = ours ? charged_.erase(it) : std::next(it);
  }
  return seconds;
}

std::string LockHolderNames::whereabouts(const std::string& job) const {
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard guard(mutex_);
  std::string said;
  const auto say = [&](const Named& named, bool ended) {
    if (named.phase.empty()) return;
    if (!worker_of(named.name, job)) return;
    const std::string role = named.name == job ? "" : named.name.substr(job.size() + 1) + " ";
    const double seconds =
        ended ? named.phase_s_at_end : std::chrono::duration<double>(now - named.phase_since).count();
    said += fmt::format("{}{}{} {} {} {:.0f} s", said.empty() ? "" : ", ", role, ended ? "ended in" : "in",
                        named.phase, ended ? "after" : "for", seconds);
  };
  for (const auto& [pid, named] : names_) say(named, false);
  for (const auto& [pid, named] : ended_) say(named, true);
  return said;
}

void LockBlame::poll(bool blocked, const std::vector<pid_t>& own, const FlockState& lock, const FlockState& gate) {
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard guard(mutex_);
  const auto since = last_;
  last_ = blocked ? std::optional(now) : std::nullopt;
  if (!blocked || !since) return;
  const double seconds = std::chrono::duration<double>(now - *since).count();
  waited_s_ += seconds;
  auto charge = [&](const FlockState& file, const char* queued) {
    bool charged = false;
    for (const auto& holder : file.holders) {
      if (std::find(own.begin(), own.end(), holder.pid) != own.end()) continue;
      const char* mode = queued ? queued : holder.exclusive ? "exclusive" : "shared";
      auto& names = LockHolderNames::instance();
      seconds_[names.name_of(holder.pid) + " (" + mode + ")"] += seconds;
      if (!queued) names.charge(holder.pid, seconds);
      charged = true;
    }
    return charged;
  };
  if (!charge(lock, nullptr)) charge(gate, "queued to time");
}

double LockBlame::waited_s() const {
  const std::lock_guard guard(mutex_);
  return waited_s_;
}

nlohmann::json LockBlame::json(std::size_t top) const {
  const std::lock_guard guard(mutex_);
  std::vector<std::pair<std::string, double>> order(seconds_.begin(), seconds_.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, seconds] : order) {
    if (out.size() >= top || seconds < 0.1) break;
    out[name] = seconds;
  }
  return out.empty() ? nlohmann::json() : out;
}

}  // namespace kbench
