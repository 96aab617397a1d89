#include "integrity/check_level.hpp"

#include <stdexcept>

namespace kbench {

std::string to_string(CheckLevel level) {
  switch (level) {
    case CheckLevel::minimal: return "minimal";
    case CheckLevel::standard: return "standard";
    case CheckLevel::strict: return "strict";
  }
  return "strict";
}

const std::vector<std::string>& check_level_names() {
  static const std::vector<std::string> names = {"minimal", "standard", "strict"};
  return names;
}

std::optional<CheckLevel> check_level_from_string(const std::string& text) {
  for (auto level : {CheckLevel::minimal, CheckLevel::standard, CheckLevel::strict})
    if (to_string(level) == text) return level;
  return std::nullopt;
}

const std::vector<IntegrityCheck>& integrity_checks() {
  using L = CheckLevel;
  static const std::vector<IntegrityCheck> checks = {
      {"alt_distribution", L::standard, "one more trial with inputs from a second distribution"},
      {"alt_shape", L::standard, "one more trial at the problem's alt_sizes"},
      {"trivial_output", L::standard,
       "an output the tolerance cannot tell from zeros matches within 5% of its largest value"},
      {"stale_memory", L::standard, "reference outputs and inputs poisoned before the import"},
      {"input_mutation", L::standard, "inputs unchanged after every checked call"},
      {"tensor_subclass", L::standard, "outputs are exactly torch.Tensor with real storage"},
      {"post_timing_recheck", L::standard, "the timed instance rechecked on a new seed after timing"},
      {"timed_call_check", L::standard, "every warm-up and timed call checked on 1024 random elements"},
      {"background_thread", L::standard, "no Python thread started by the candidate still runs"},
      {"child_process", L::standard, "no process started by the candidate still runs"},
      {"monkeypatch", L::standard, "torch, time, builtins... functions unchanged by the candidate"},
      {"side_stream", L::standard, "no timed call leaves work running off the timed stream (CUDA)"},
      {"native_isolation", L::standard,
       "a candidate that may run native code runs apart from the expected values (commit, then reveal)"},
      {"timing_witness", L::standard,
       "an isolated candidate's samples bounded by the controller's clock around calls on fresh inputs"},
      {"baseline_cross_check", L::standard,
       "an isolated candidate's baseline samples agree with the reference worker's (rejected on CUDA)"},
      {"reference_called", L::strict, "no code of the problem file runs inside a candidate call"},
      {"profile_hook_removed", L::strict, "the call tracer stays installed during checked calls"},
      {"no_custom_kernel", L::strict, "a custom kernel is reachable from ModelNew.forward"},
      {"custom_kernel_not_launched", L::strict, "a custom kernel launches during a checked call"},
      {"custom_kernel_share", L::strict, "custom kernels take a real share of the GPU time (CUDA)"},
      {"forbidden_api", L::strict, "the candidate's source uses no forbidden import or API"},
  };
  return checks;
}

bool check_enabled(CheckLevel level, const std::string& check) {
  for (const auto& c : integrity_checks())
    if (check == c.name) return static_cast<int>(level) >= static_cast<int>(c.level);
  throw std::logic_error("unknown integrity check '" + check + "'");
}

}  // namespace kbench
