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

// Rounds a baseline is sampled for beside a candidate when its kept record is reused: enough for
// the protocol's minimum sample count, at least 3 (the protocol's minimum rounds).
int short_baseline_rounds(int min_samples, int samples_per_round);

}  // namespace kbench
