#pragma once
// The live progress line of `kbench run` on a terminal:
//   [ 12/40] 2 failed · ETA 3m10s · running: problem/candidate, problem/candidate
// The tracker only counts; the CLI decides where and how often to draw it.
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace kbench {

// "45s", "3m10s", "1h02m"; rounds to whole seconds.
std::string format_duration(double seconds);

// Seconds left at the rate observed so far: `elapsed_s` over the `finished` jobs of this
// session (jobs a resumed run skipped took no time here). None before the first job finishes.
std::optional<double> estimate_remaining_s(std::size_t finished, std::size_t remaining, double elapsed_s);

class ProgressTracker {
 public:
  // `total`: planned jobs; `already_done`: finished in an earlier session (--resume).
  ProgressTracker(std::size_t total, std::size_t already_done);

  // A run that grows while it goes (run/run_session.hpp): the new total of planned jobs.
  void set_total(std::size_t total) { total_ = total; }
  // One more job finished without running here (resumed from the journal, or a result without a
  // worker): counted as done, not in the rate.
  void already_finished() { ++already_done_; }
  // Model requests beside the evaluations (the agent's later turns): shown while any is in
  // flight, with the tokens those requests used so far.
  void set_generation(std::size_t requests_in_flight, long long tokens) {
    requests_in_flight_ = requests_in_flight;
    generation_tokens_ = tokens;
  }
  void started(std::size_t index, const std::string& label);
  void finished(std::size_t index, bool failed);

  // The line at `elapsed_s` since this session started, cut to `width` characters.
  [[nodiscard]] std::string line(double elapsed_s, std::size_t width = 120) const;

  [[nodiscard]] std::size_t done() const { return already_done_ + finished_; }
  [[nodiscard]] std::size_t total() const { return total_; }

 private:
  std::size_t total_;
  std::size_t already_done_;
  std::size_t finished_ = 0;
  std::size_t failed_ = 0;
  std::size_t requests_in_flight_ = 0;
  long long generation_tokens_ = 0;
  std::map<std::size_t, std::string> running_;  // plan index -> "problem/candidate"
};

}  // namespace kbench
