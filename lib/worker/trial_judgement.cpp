#include "worker/trial_judgement.hpp"

#include <fmt/format.h>

#include "correctness/output_comparison.hpp"
#include "correctness/trivial_output.hpp"
#include "worker/verdict.hpp"

namespace kbench {

std::string trial_name(const Trial& trial) {
  return fmt::format("{} trial, seed {}", to_string(trial.kind), trial.seed);
}

void judge_trial_outputs(const Trial& trial, const std::vector<at::Tensor>& actual, const Tolerance& tolerance,
                         ErrorBounds& bounds, bool trivial_output_check) {
  const std::string where = trial_name(trial);
  ComparisonResult cmp;
  try {
    cmp = compare_outputs(trial.expected, actual, tolerance);
  } catch (const std::exception& e) {
    // e.g. outputs on another device or with no storage: the candidate's doing.
    throw Verdict{Status::mismatch, fmt::format("{}: outputs cannot be compared with the reference", where),
                  {{"seed", trial.seed}, {"trial", to_string(trial.kind)},
                   {"error", std::string(e.what()).substr(0, 2000)}}};
  }
  bounds.max_abs_error = std::max(bounds.max_abs_error, cmp.max_abs_error);
  bounds.max_rel_error = std::max(bounds.max_rel_error, cmp.max_rel_error);
  // A wrong trial is a mismatch; the recheck, right before timing and wrong after it, a rejection.
  const auto wrong = [&](const std::string& reason, const nlohmann::json& mismatch) {
    if (trial.kind == TrialKind::post_timing)
      throw rejection("post_timing_recheck",
                      fmt::format("the timed instance is wrong on fresh inputs after timing: {}", reason),
                      {{"mismatch", mismatch}});
    throw Verdict{Status::mismatch, fmt::format("{}: {}", where, reason), {{"mismatch", mismatch}}};
  };
  if (cmp.ok && trivial_output_check) {
    if (const auto why = trivial_match(trial.expected, trial.expected_max_abs, actual, tolerance))
      wrong(*why, {{"seed", trial.seed}, {"trial", to_string(trial.kind)}, {"check", "trivial_output"}});
  }
  if (cmp.ok) return;
  nlohmann::json mismatch = {{"seed", trial.seed},
                             {"trial", to_string(trial.kind)},
                             {"output_index", cmp.output_index},
                             {"max_abs_error", cmp.max_abs_error},
                             {"max_rel_error", cmp.max_rel_error},
                             {"mismatched_fraction", cmp.mismatched_fraction},
                             {"first_bad_index", cmp.first_bad_index},
                             {"atol", tolerance.atol},
                             {"rtol", tolerance.rtol}};
  if (!trial.constants.empty()) mismatch["constants"] = trial.constants;
  wrong(cmp.reason, mismatch);
}

CallTolerances call_tolerances(const std::vector<Trial>& trials, const Tolerance& tolerance, bool trivial_output_check) {
  const std::size_t outputs = trials.empty() ? 0 : trials.front().expected.size();
  if (!trivial_output_check) return CallTolerances{tolerance, {}};
  // Seed trials only: the timed calls' values are drawn as theirs are (the alternative
  // distribution's scale is another).
  std::vector<std::vector<double>> largest;
  for (const auto& trial : trials)
    if (trial.kind == TrialKind::seed) largest.push_back(trial.expected_max_abs);
  return sampled_call_tolerances(largest, outputs, tolerance);
}

}  // namespace kbench
