#pragma once
// The service's reference fill (docs/serve.md#reference-fill): at start, the kept reference
// record of every problem of the suite queued for measurement in the session
// (RunSession::push_reference_fill: claimed only by slots no request waits for), and its
// progress as the session reports each fill. Not thread-safe: the Evaluator calls it under its
// own lock (queue() before the session runs).
#include <cstddef>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "model/job_result.hpp"
#include "suite/suite.hpp"

namespace kbench {

class RunSession;

struct ReferenceFillStats {
  std::string off;            // why nothing is filled ("" when the fill runs)
  std::size_t problems = 0;   // problems queued for the fill
  std::size_t filled = 0;     // their record is kept: measured by the fill, or already there
  std::size_t failed = 0;     // the trusted measurement failed (a request measures again)
  std::size_t running = 0;
  std::size_t cancelled = 0;  // not started when the service drained
  double seconds = 0;         // the trusted workers' wall time, summed
  std::map<std::string, std::string> failures;  // problem -> why
  [[nodiscard]] std::size_t pending() const { return problems - filled - failed - running - cancelled; }
  [[nodiscard]] bool done() const { return pending() == 0 && running == 0; }
};
// {"problems", "filled", "failed", "running", "pending", "cancelled", "seconds", "done",
// "failures"}, and "off" when nothing is filled.
nlohmann::json to_json(const ReferenceFillStats& fill);

class ReferenceFill {
 public:
  // Queues one fill per problem of `suite` on `device` in `session`, which holds no job yet (the
  // fills take its first indices); the line to log.
  std::string queue(RunSession& session, const Suite& suite, const Device& device);
  // No fill at all (the caller turned it off).
  void turn_off(const std::string& why) { stats_.off = why; }
  // Whether the session's job `index` is a fill (then counted): its start, its end.
  bool started(std::size_t index);
  bool finished(std::size_t index, const JobResult& result);
  // Fills dropped before they started (RunSession::cancel_reference_fills).
  void cancelled(std::size_t count) { stats_.cancelled += count; }
  // The session's first index after the fills: the first request's.
  [[nodiscard]] std::size_t next_index() const { return problems_.empty() ? 0 : problems_.rbegin()->first + 1; }
  [[nodiscard]] const ReferenceFillStats& stats() const { return stats_; }

 private:
  std::map<std::size_t, std::string> problems_;  // session index -> problem id
  ReferenceFillStats stats_;
};

}  // namespace kbench
