#pragma once
// How one problem is evaluated: the suite's `defaults:` block, overridden per problem by its
// `overrides:` block. The same struct travels to the worker inside a Job.
#include <optional>
#include <string>
#include <vector>

#include "integrity/check_level.hpp"
#include "measure/timing_config.hpp"

namespace kbench {

struct EvalSettings {
  std::string dtype = "float32";      // dtype of floating inputs, parameters and outputs
  std::optional<double> atol;         // unset: per-dtype default (model/tolerance.hpp)
  std::optional<double> rtol;
  int seeds = 5;                      // correctness trials, each with fresh inputs and weights
  TimingConfig timing;                // the `timing:` block
  std::vector<std::string> baselines = {"eager", "inductor"};
  std::string inductor_mode = "default";  // torch.compile(mode=...)
  double timeout_s = 600;             // whole worker, compile included
  // Watchdog and sandbox limits (docs/sandbox.md). Unset time limits leave only timeout_s.
  std::optional<double> compile_timeout_s;  // start until the first successful candidate call
  std::optional<double> run_timeout_s;      // from then until the worker ends
  // Each extension build (docs/extensions.md); its time does not count against compile_timeout_s.
  std::optional<double> build_timeout_s;
  std::optional<double> memory_limit_gb;    // unset: default_memory_limit_gb()
  double output_cap_mb = 1;                 // per stream, first and last half kept
  double file_size_limit_gb = 4;            // RLIMIT_FSIZE: largest file a worker may write
  // Integrity (docs/integrity.md): which checks run, and the policies they enforce.
  CheckLevel checks = CheckLevel::strict;
  bool require_custom_kernel = false;   // candidates must define and launch their own kernels
  double min_custom_kernel_share = 0.5; // of GPU time in custom kernels (CUDA only)
  double flag_speedup_above = 10;       // a faster candidate is flagged `suspicious_speedup`
  bool alt_inputs = true;               // one extra trial on a second input distribution
  // Checks switched off by name although the level runs them, e.g. forbidden_api for a suite
  // whose candidates need `import os`, or for tests of the runtime layer behind it.
  std::vector<std::string> skip_checks;
};

// min(32 GiB, 75% of this machine's RAM).
double default_memory_limit_gb();

// The baselines kbench can time: "eager", "inductor".
const std::vector<std::string>& baseline_names();

// The names accepted in `defaults:` and `overrides:`; used for "did you mean" hints.
const std::vector<std::string>& eval_setting_keys();

}  // namespace kbench
