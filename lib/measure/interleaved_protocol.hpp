#pragma once
// The measurement protocol: variants (candidate, eager, Inductor) timed in alternation, in
// rounds, until every median is known to the target precision or a cap is hit. Alternation
// makes drift and order effects hit all variants alike, so they cancel in the speedups.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "measure/timer.hpp"
#include "measure/timing_config.hpp"

namespace kbench {

struct ProtocolVariant {
  std::string name;
  std::function<void(int input_set)> call;  // one call on the given pre-built input set
  // Around every sample, warm-up and timed alike, outside the timed interval (either may be
  // empty): `before_sample` may load other values into the set's buffers, `after_sample` checks
  // what the sample's calls returned (integrity/call_audit.hpp). They run once per sample, so a hot
  // batch is checked call by call after the batch.
  std::function<void(int input_set)> before_sample;
  std::function<void(bool warmup)> after_sample;
  // Sampled in the first `max_rounds` rounds only (0: every round), all of them before the run
  // may converge (max_time and max_samples still stop it), then left out of the stopping rule: a kept baseline's short drift sample beside the candidate
  // (measure/baseline_drift.hpp), while the candidate goes on to its own precision.
  int max_rounds = 0;
  // Hot mode: at most this many calls per sample. With fresh values every call needs a buffer
  // of its own (worker/fresh_inputs.hpp), and the variant has only so many.
  int max_calls_per_sample = 100;
};

struct VariantRecord {
  std::vector<double> samples_ms;  // per call (hot mode: batch time / calls per batch)
  std::vector<int> rounds;         // round of each sample
  int offstream_samples = 0;       // samples whose device work outlived the end event
  int discarded_samples = 0;       // blocking kernel timed out; sample dropped
  int calls_per_sample = 1;        // hot mode batches
  // False once the blocking kernel timed out behind this variant (its calls wait on the host,
  // e.g. .item()): its samples are then taken without it, launch latency included.
  bool blocking = true;
  int warmup_calls = 0;
  double warmup_s = 0;
};

struct ProtocolRun {
  std::map<std::string, VariantRecord> variants;
  int rounds = 0;
  bool converged = false;
  std::string stop_reason;  // "converged", "max_time", "max_samples"
  double wall_s = 0;
};

struct ProtocolHooks {
  std::function<void()> flush;     // cold mode: before every sample, outside the interval
  std::function<void()> on_round;  // after every round (clock readings)
};

// Relative half-width of the order-statistic 95% CI of the median; the stopping criterion.
double relative_ci_half_width(const std::vector<double>& samples);

ProtocolRun run_interleaved(Timer& timer, const std::vector<ProtocolVariant>& variants,
                            const ResolvedTiming& timing, const ProtocolHooks& hooks);

// KernelBench's cuda_event protocol, reimplemented for comparison: per variant, one after the
// other, 3 warmups, then 100 trials of sync -> flush -> event -> call -> event -> sync.
ProtocolRun run_kernelbench_style(Timer& timer, const std::vector<ProtocolVariant>& variants,
                                  const ProtocolHooks& hooks);

}  // namespace kbench
