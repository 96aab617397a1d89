#pragma once
// A result's `kept_reference` (model/kept_reference.hpp has the record it refers to and the
// JSON form of both).
#include <optional>
#include <string>

#include "measure/confidence.hpp"

namespace kbench {

// What one result says about the kept reference work of its problem (`kept_reference` in the
// results file).
struct KeptReferenceUse {
  bool kept = false;       // the baselines in `timings` are the record's
  std::string key;         // the record's digest
  double age_s = 0;        // of the record when this job used it
  int uses = 0;            // jobs that reused the record, this one included
  bool refreshed = false;  // this job had the record measured (first use, or after drift)
  double refresh_s = 0;    // the trusted worker's wall time, when refreshed
  std::string drift_baseline;       // the baseline re-timed beside the candidate
  std::optional<double> drift;      // fresh median / kept median - 1
  std::optional<Interval> drift_ci; // 95% round bootstrap of fresh / kept
  double drift_bound = 0;           // the CI had to lie within 1 -/+ this
  std::string fallback;             // why the full protocol ran instead ("": kept)
};

}  // namespace kbench
