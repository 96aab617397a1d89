#pragma once
// Is a kept baseline still the one this job would measure? Every job that reuses kept reference
// work (model/kept_reference.hpp) re-times one baseline for a few rounds interleaved with its
// candidate; this compares that fresh sample with the kept one. The kept baseline stands only
// when the 95% CI of fresh median / kept median (round bootstrap, the two resampled
// independently: they come from different runs) lies inside [1 - bound, 1 + bound]: a drift
// that cannot be shown to be smaller than the bound sends the job back to the full protocol.
// A short sample too noisy to show that falls back too, which is the safe side.
#include <string>

#include "measure/confidence.hpp"

namespace kbench {

struct DriftCheck {
  double drift = 0;   // fresh median / kept median - 1
  Interval ratio_ci;  // of fresh / kept
  bool within = false;
  std::string reason;  // why not, for the result's `kept_reference.fallback`
};

// `bound` > 0 (e.g. 0.02: 2%). Throws std::invalid_argument for an empty sample.
DriftCheck check_baseline_drift(const RoundSamples& fresh, const RoundSamples& kept, double bound);

// The fewest rounds a short sample has. The CI is a round bootstrap, and the median of a resample
// moves only once more than half of its rounds are copies of one outlier round: with 3 rounds a
// resample is that in 26% of draws, so one hiccup put the CI's end far out (a 3-round CPU sample
// of median drift -1.1% had a CI of [0.47, 2.0]); with 8, in 0.04%.
inline constexpr int kMinDriftRounds = 8;

// Rounds a baseline is sampled for beside a candidate when its kept record is reused: enough for
// the protocol's minimum sample count, at least kMinDriftRounds.
int short_baseline_rounds(int min_samples, int samples_per_round);

}  // namespace kbench
