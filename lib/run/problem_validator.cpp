#include "run/problem_validator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/controller.hpp"
#include "run/job_planning.hpp"
#include "run/work_dir.hpp"
#include "suite/suite.hpp"

namespace kbench {
namespace {

// Checks whose failure means "a trivial output passes", not "the problem is broken".
bool is_degeneracy_check(const std::string& name) {
  return name == "depends_on_input" || name == "not_zeros" || name == "not_constant";
}

ProblemValidation judge(const Job& job, const Problem& problem, ProblemCheckOutcome outcome) {
  ProblemValidation v;
  v.id = job.problem_id;
  v.report = std::move(outcome.report);
  // The worker's own ru_maxrss; the watchdog's figure when the worker died before reporting.
  v.peak_host_memory_bytes = std::max(outcome.peak_host_memory_bytes, v.report.peak_rss_bytes);
  v.wall_s = outcome.wall_s;
  if (v.report.error) {
    v.failures.push_back("worker: " + *v.report.error);
    return v;
  }
  bool only_degeneracy = true;
  for (const auto& check : v.report.checks) {
    if (check.ok) continue;
    v.failures.push_back(check.name + ": " + check.detail);
    only_degeneracy = only_degeneracy && is_degeneracy_check(check.name);
  }
  v.known_degenerate = !v.failures.empty() && only_degeneracy && problem.degenerate_reason.has_value();
  v.ok = v.failures.empty() || v.known_degenerate;
  return v;
}

}  // namespace

std::string validation_line(const ProblemValidation& v) {
  std::string memory;
  if (v.report.peak_device_memory_bytes)
    memory = fmt::format("peak {} on the GPU, ", bytes_text(double(*v.report.peak_device_memory_bytes)));
  memory += fmt::format("{} host RSS", bytes_text(double(v.peak_host_memory_bytes)));
  std::string notes;
  if (!v.failures.empty()) {
    notes = join(v.failures, "; ");
  } else {
    std::vector<std::string> parts;
    for (const auto& check : v.report.checks) {
      // e.g. "output (8, 16) torch.float32, deterministic: bit-exact, inductor ok"
      if (check.name == "runs") parts.push_back(check.detail);
      if (check.name == "deterministic") parts.push_back("deterministic: " + check.detail);
      if (check.name == "inductor") parts.push_back("inductor ok");
    }
    notes = join(parts, ", ");
  }
  const char* verdict = !v.ok ? "FAIL" : v.known_degenerate ? "ok (known degenerate)" : "ok";
  return fmt::format("{}  {}  {}; {:.1f} s  {}", v.id, verdict, memory, v.wall_s, notes);
}

std::vector<ProblemValidation> validate_suite(const ProblemValidationOptions& options) {
  Suite suite = load_suite(options.suite_file);
  select_problems(options.selection, std::nullopt, suite.problems);
  const std::vector<Device> devices = resolve_devices(options.device);
  const bool temporary = !options.work_dir;
  // Absolute: each worker runs in its own job folder, so a relative path would miss its files.
  const auto work_dir =
      temporary ? make_temp_work_dir("kbench-validate") : std::filesystem::absolute(*options.work_dir);
  std::filesystem::create_directories(work_dir);
  // One slot on the first device: its GPU lock keeps a concurrent `run` from timing meanwhile.
  const WorkerSlot slot = plan_slots({devices.front()}, 1, 1, gpu_lock_dir()).front();
  std::vector<ProblemValidation> out;
  auto remove_work_dir = [&] {
    if (!temporary) return;
    std::error_code ignored;
    std::filesystem::remove_all(work_dir, ignored);
  };
  try {
    probe_environment(*slot.device, work_dir);  // a broken Python is one error (exit 3), not N
    for (std::size_t i = 0; i < suite.problems.size(); ++i) {
      const Job job = problem_job(suite.problems[i], *slot.device);  // no candidate: the problem alone
      out.push_back(judge(job, suite.problems[i], check_problem_in_worker(job, work_dir / fmt::format("problem-{:04d}", i),
                                                       slot, options.inductor)));
      if (options.log) options.log(validation_line(out.back()));
    }
  } catch (const Interrupted&) {  // the second Ctrl-C killed the running worker
    remove_work_dir();
    throw Error(kExitInterrupted, fmt::format("interrupted after {} of {} problems",
                                              out.size(), suite.problems.size()));
  } catch (...) {
    remove_work_dir();
    throw;
  }
  remove_work_dir();
  return out;
}

}  // namespace kbench
