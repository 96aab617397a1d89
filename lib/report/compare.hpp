#pragma once
// `kbench compare BASE NEW`: per (problem, candidate) changes between two results files, and
// the regression decision for CI (method: docs/compare.md).
#include <optional>
#include <string>
#include <vector>

#include "model/job_result.hpp"
#include "measure/confidence.hpp"
#include "report/run_report.hpp"
#include "report/summary_metrics.hpp"

namespace kbench {

enum class PairKind {
  compared,       // correct in both: timed against each other
  newly_failing,  // ok in BASE, not ok in NEW
  newly_passing,  // not ok in BASE, ok in NEW
  still_failing,  // not ok in either
  added,          // only in NEW
  removed,        // only in BASE
};
std::string to_string(PairKind kind);

struct PairChange {
  std::string problem;
  std::string candidate;
  PairKind kind = PairKind::compared;
  std::optional<Status> base_status, new_status;
  std::optional<double> base_ms, new_ms;  // the candidate's headline time
  // new_ms / base_ms (< 1: faster) with a 95% bootstrap CI; the verdict uses the 2% rule.
  std::optional<double> time_ratio;
  std::optional<Interval> time_ratio_ci;
  std::optional<SpeedupVerdict> verdict;
  // Speedup vs the chosen baseline in each file, and new / base (> 1: improved relative to it).
  std::optional<double> base_speedup, new_speedup, speedup_change;
};

struct Comparison {
  std::string baseline;  // "inductor" or "eager": the one speedup changes are measured against
  std::vector<PairChange> pairs;  // BASE's order, then NEW's additions
  SummaryMetrics base_summary, new_summary;
};

struct CompareOptions {
  std::optional<std::string> baseline;  // default: inductor when timed, else eager
  bool ignore_env = false;
};

// Throws InputError when the environments differ (unless ignore_env) or the baseline is unknown.
Comparison compare_reports(const RunReport& base, const std::string& base_name, const RunReport& next,
                           const std::string& next_name, const CompareOptions& options = {});

// FASTER when the CI of new/base lies below 1 and the ratio is <= 0.98; SLOWER when it lies
// above 1 and the ratio is >= 1.02; SAME when the CI lies within [0.98, 1.02]; else AMBIGUOUS.
SpeedupVerdict classify_time_ratio(double ratio, const Interval& ci);

// A pair that fails `--fail-on-regression PCT`: SLOWER by at least PCT percent, or newly failing.
bool is_regression(const PairChange& pair, double percent);
// The exit decision: true ("fail", exit 1) when any pair is a regression.
bool has_regression(const Comparison& comparison, double percent);

// What a regression gate may be asked to judge anyway.
struct GateOptions {
  bool allow_incomplete = false;      // BASE or NEW is an interrupted run
  bool allow_suite_mismatch = false;  // they are runs of differently named suites
  bool allow_plan_change = false;     // evaluations only in BASE (missing) or only in NEW
};

// A gate passes only when every evaluation of BASE was judged: throws InputError (exit 2)
// naming the flag that allows it, when a file is incomplete, the suites differ or the plans do.
void check_gate_inputs(const RunReport& base, const std::string& base_name, const RunReport& next,
                       const std::string& next_name, const Comparison& comparison,
                       const GateOptions& options);

}  // namespace kbench
