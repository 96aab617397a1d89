#pragma once
// Figures per turn of the agent loop (docs/metrics.md#turns). A conversation is one (problem,
// sample); after turn t it counts with the best of its candidates of turns 1..t (correct first,
// then the fastest), which is what the loop keeps. So pass@1 after turn t is the mean over
// problems of the share of their samples correct at some turn <= t, and fast_p after turn t the
// share whose best correct candidate so far beats the baseline by more than p (point speedup,
// KernelBench's fast_p). Turn 1 alone is the single-shot figure.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/job_result.hpp"

namespace kbench {

struct TurnFigures {
  int turn = 1;
  std::size_t evaluations = 0;                  // results of this turn
  std::map<std::string, std::size_t> statuses;  // of this turn's results, by status name
  double pass_at_1 = 0;                         // best so far (above)
  // Per baseline timed ("eager", "inductor"), per threshold label of fast_p_thresholds().
  std::map<std::string, std::map<std::string, double>> fast_p;
};

// Turns 1..the highest turn among the generated results; empty when there are none.
std::vector<TurnFigures> turn_metrics(const std::vector<JobResult>& results);

// "turn 2: 11 evaluations (ok 8, mismatch 3); pass@1 0.833; fast_1 vs eager 0.417", one line per turn.
std::string turn_metrics_text(const std::vector<TurnFigures>& turns);

}  // namespace kbench
