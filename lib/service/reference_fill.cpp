#include "service/reference_fill.hpp"

#include <fmt/format.h>

#include "run/job_planning.hpp"
#include "run/run_session.hpp"

namespace kbench {

nlohmann::json to_json(const ReferenceFillStats& fill) {
  nlohmann::json json = {{"problems", fill.problems}, {"filled", fill.filled},   {"failed", fill.failed},
                         {"running", fill.running},   {"pending", fill.pending()}, {"cancelled", fill.cancelled},
                         {"seconds", fill.seconds},   {"done", fill.done()},      {"failures", fill.failures}};
  if (!fill.off.empty()) json["off"] = fill.off;
  return json;
}

std::string ReferenceFill::queue(RunSession& session, const Suite& suite, const Device& device) {
  std::string why;
  for (const auto& problem : suite.problems) {
    // The job a request of the problem gets (same settings, so the same key), without a candidate.
    Job job = problem_job(problem, device);
    job.candidate = "(reference fill)";
    if (const auto index = session.push_reference_fill(std::move(job), why)) problems_[*index] = problem.id;
  }
  stats_.problems = problems_.size();
  if (problems_.empty()) {
    stats_.off = why.empty() ? "the suite has no problem" : why;
    return "kbench: no reference fill: " + stats_.off;
  }
  return fmt::format("kbench: queued the reference fill of {} problem{} (requests go first)", problems_.size(),
                     problems_.size() == 1 ? "" : "s");
}

bool ReferenceFill::started(std::size_t index) {
  if (!problems_.count(index)) return false;
  ++stats_.running;
  return true;
}

bool ReferenceFill::finished(std::size_t index, const JobResult& result) {
  const auto it = problems_.find(index);
  if (it == problems_.end()) return false;
  --stats_.running;
  stats_.seconds += result.wall_s;
  if (is_correct(result.status)) {
    ++stats_.filled;
  } else {
    ++stats_.failed;
    stats_.failures[it->second] = result.message;
  }
  return true;
}

}  // namespace kbench
