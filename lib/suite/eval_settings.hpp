#pragma once
// How one problem is evaluated: the suite's `defaults:` block, overridden per problem by its
// `overrides:` block. The same struct travels to the worker inside a Job.
#include <optional>
#include <string>
#include <vector>

#include "check/check_level.hpp"
#include "measure/timing_config.hpp"

namespace kbench {

struct EvalSettings {
  std::string dtype = "float32";      // dtype of floating inputs, parameters and outputs
  std::optional<double> atol;         // unset: per-dtype default (suite/tolerance.hpp)
  std::optional<double> rtol;
  int seeds = 5;                      // correctness trials, each with fresh inputs and weights
  TimingConfig timing;                // the `timing:` block
  std::vector<std::string> baselines = {"eager", "inductor"};
  std::string inductor_mode = "default";  // torch.compile(mode=...)
  double timeout_s = 600;             // whole worker, compile included
  // Integrity (docs/integrity.md): which checks run, and the policies they enforce.
  CheckLevel checks = CheckLevel::strict;
  bool require_custom_kernel = false;   // candidates must define and launch their own kernels
  double min_custom_kernel_share = 0.5; // of GPU time in custom kernels (CUDA only)
  double flag_speedup_above = 10;       // a faster candidate is flagged `suspicious_speedup`
  bool alt_inputs = true;               // one extra trial on a second input distribution
};

// The baselines kbench can time: "eager", "inductor".
const std::vector<std::string>& baseline_names();

// The names accepted in `defaults:` and `overrides:`; used for "did you mean" hints.
const std::vector<std::string>& eval_setting_keys();

}  // namespace kbench
