#include "run/turn_feedback.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kbench {
namespace {

// Diagnostics that describe the harness, not the candidate: never sent to the model.
const std::set<std::string>& harness_keys() {
  static const std::set<std::string> keys = {
      "sandbox", "worker_timeline", "output", "stdout_tail", "extension_build", "extension_cache",
      "harness_overhead_s", "checks", "baselines", "integrity_cost_s", "exit_code", "signal",
      "traceback", "stderr_tail", "peak_memory_bytes"};
  return keys;
}

// The end of `text`, at most `limit` characters: the last frames of a traceback name the error.
std::string tail(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  return "[...]\n" + text.substr(text.size() - limit);
}

std::string timing_lines(const JobResult& r) {
  std::string out;
  const auto candidate = r.timings.find("candidate");
  if (candidate == r.timings.end()) return out;
  out += fmt::format("Your kernel's time: {:.4g} ms ({} of {} timed samples, {} timing).\n",
                     candidate->second.headline_ms(), candidate->second.statistic,
                     candidate->second.samples_ms.size(), candidate->second.mode);
  for (const char* baseline : {"eager", "inductor"}) {
    const auto timed = r.timings.find(baseline);
    const auto speedup = r.speedups.find(baseline);
    if (timed == r.timings.end() || speedup == r.speedups.end()) continue;
    const std::string name = std::string(baseline) == "eager" ? "PyTorch eager" : "torch.compile (Inductor)";
    out += fmt::format("{}: {:.4g} ms, so your speedup is {:.3g}x", name, timed->second.headline_ms(),
                       speedup->second.value);
    if (speedup->second.verdict) out += fmt::format(" ({})", to_string(*speedup->second.verdict));
    out += ".\n";
  }
  return out;
}

}  // namespace

TurnFeedback turn_feedback(const JobResult& r, std::size_t max_chars) {
  std::string out;
  if (is_correct(r.status)) {
    const std::string verdict = fmt::format(
        "The evaluator ran your ModelNew for problem `{}`: it is correct (outputs match the reference on "
        "every check).\n", r.job.problem_id);
    const std::string ask = "Write a faster version if you can, keeping it correct. Reply with the complete "
                            "new code in one fenced python block.";
    return {verdict + timing_lines(r) + ask, verdict + ask};
  }
  if (r.status == Status::no_code) {
    // The extraction's reason, not the message: that names where this run kept the reply, which
    // tells the model nothing and made the next turn's cache key differ between two runs.
    const std::string why = r.job.origin ? "the reply held no code (" + r.job.origin->extraction + ")" : r.message;
    out = fmt::format("Your reply for problem `{}` held no code the evaluator could run ({}). Reply with the "
                      "complete ModelNew code in one fenced python block.", r.job.problem_id, why);
    return {out, out};
  }
  out = fmt::format("The evaluator ran your ModelNew for problem `{}`: status {}. {}\n", r.job.problem_id,
                    to_string(r.status), r.message);
  const std::string ask = "Fix the problem and reply with the complete corrected code in one fenced python block.";
  // The replay key is the verdict: the details below carry per-run figures (costs, paths, pids).
  const std::string key = out + ask;
  // The evidence: mismatch figures, the integrity check and what it saw, the failing trial.
  nlohmann::json evidence = nlohmann::json::object();
  for (const auto& [key, value] : r.diagnostics.items())
    if (!harness_keys().count(key)) evidence[key] = value;
  if (!evidence.empty()) {
    std::string text = evidence.dump(1);
    if (text.size() > max_chars / 3) text = text.substr(0, max_chars / 3) + " [...]";
    out += "Details: " + text + "\n";
  }
  auto text_of = [&](const char* name) {
    const auto it = r.diagnostics.find(name);
    return it != r.diagnostics.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // A traceback where the worker caught one; else, for a worker that died or failed to start
  // the candidate, the end of its stderr. A mismatch's stderr is the harness's, not evidence.
  const bool died = r.status == Status::crashed || r.status == Status::timeout ||
                    r.status == Status::compile_error || r.status == Status::runtime_error;
  const std::string error = !text_of("traceback").empty() ? text_of("traceback") : died ? text_of("stderr_tail") : "";
  if (!error.empty()) {
    const std::size_t room = out.size() < max_chars ? max_chars - out.size() : 0;
    out += "Error output:\n```\n" + tail(error, std::max<std::size_t>(room, 500)) + "\n```\n";
  }
  return {out + ask, key};
}

}  // namespace kbench
