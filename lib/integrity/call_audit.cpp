#include "integrity/call_audit.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "exec/call_reveal.hpp"
#include "integrity/sampled_comparison.hpp"
#include "integrity/tensor_guard.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/phase_signal.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {
std::string describe_call(const std::string& variant, const CallRecord& call) {
  const std::string values = call.fresh_seed >= 0 ? fmt::format("fresh values, seed {}", call.fresh_seed)
                                                  : fmt::format("input set {}", call.value_set);
  return fmt::format("{} {} call {} ({})", variant, call.warmup ? "warm-up" : "timed", call.index, values);
}

CallAudit::CallAudit(std::vector<std::vector<at::Tensor>> expected, std::string structure,
                     CallAuditSettings settings)
    : expected_(std::move(expected)), structure_(std::move(structure)), settings_(std::move(settings)) {}

int CallAudit::draw_value_set() {
  if (deck_.empty()) {
    for (int i = 0; i < value_sets(); ++i) deck_.push_back(i);
    std::random_device entropy;
    std::mt19937 generator(entropy());
    std::shuffle(deck_.begin(), deck_.end(), generator);
  }
  const int next = deck_.back();
  deck_.pop_back();
  return next;
}

void CallAudit::skip_comparison(const std::string& why) {
  settings_.compare = false;
  settings_.commit = false;
  notes_["skipped"] = why;
}

void CallAudit::audit(const std::string& variant, const CallRecord& call, const py::object& output,
                      const std::vector<at::Tensor>& keep) {
  const auto start = std::chrono::steady_clock::now();
  ++calls_seen_;
  std::vector<at::Tensor> tensors;
  try {
    check(variant, call, output, tensors);
  } catch (...) {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    throw;
  }
  poison_outputs(output, tensors, keep);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace {
// A tensor subclass returned from a timed call: reading it (the gather below, the comparison)
// would run its Python code after the timed interval, where a lazy tensor does its work. The
// candidate's outputs must be plain tensors (nn.Parameter too: it adds no Python dispatch).
void refuse_subclasses(const std::string& variant, const std::string& judged, const FlatOutputs& flat) {
  if (variant != judged) return;
  for (std::size_t i = 0; i < flat.types.size(); ++i) {
    const auto& type = flat.types[i];
    if (type != "torch.Tensor" && type != "torch.nn.parameter.Parameter")
      throw rejection("tensor_subclass", fmt::format("a timed call's output {} is a {}, not a torch.Tensor", i, type),
                      {{"output_index", i}, {"type", type}});
  }
}
}  // namespace

void CallAudit::poison_outputs(const py::object& output, std::vector<at::Tensor>& tensors,
                               const std::vector<at::Tensor>& keep) const {
  if (!settings_.poison) return;
  if (tensors.empty()) {
    try {
      tensors = flatten_outputs(output).tensors;
    } catch (const std::invalid_argument&) {
    }
  }
  for (const auto& t : tensors) {
    bool shared = false;
    for (const auto& k : keep) shared = shared || same_storage(t, k);
    if (!shared) poison(t);
  }
}

void CallAudit::fail(const std::string& variant, const CallRecord& call, const std::string& what,
                     nlohmann::json evidence) {
  const std::string text = fmt::format("{} returned {}", describe_call(variant, call), what);
  if (variant != settings_.judged) {
    if (!notes_.contains("baseline_call_mismatch")) notes_["baseline_call_mismatch"][variant] = text;
    return;
  }
  evidence["call"] = call.index;
  evidence["warmup"] = call.warmup;
  evidence["input_set"] = call.value_set;
  if (call.fresh_seed >= 0) evidence["fresh_seed"] = call.fresh_seed;
  throw rejection("timed_call_check", text, evidence);
}

CallAudit::Taken CallAudit::take(const std::string& variant, const CallRecord& call, const py::object& output,
                                 const std::vector<at::Tensor>& keep) {
  const auto start = std::chrono::steady_clock::now();
  ++calls_seen_;
  Taken taken{call, {}};
  std::vector<at::Tensor> tensors;
  const auto elapsed = [&] {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  try {
    // Structure, dtypes and shapes against set 0's expected outputs: fresh values have its layout.
    if (settings_.compare) {
      FlatOutputs flat;
      bool comparable = true;
      try {
        flat = flatten_outputs(output);
      } catch (const std::invalid_argument& e) {
        comparable = false;
        fail(variant, call, fmt::format("an output that is not tensors: {}", e.what()), {});
      }
      refuse_subclasses(variant, settings_.judged, flat);
      tensors = flat.tensors;
      if (comparable && flat.structure != structure_) {
        comparable = false;
        fail(variant, call, fmt::format("output structure {}, {} expected", flat.structure, structure_), {});
      }
      const auto& layout = expected_.at(0);
      for (std::size_t i = 0; comparable && i < layout.size(); ++i) {
        const at::Tensor& t = flat.tensors[i];
        if (t.scalar_type() != layout[i].scalar_type() || !t.sizes().equals(layout[i].sizes())) {
          const auto s = compare_sampled(layout[i], t, settings_.samples, settings_.tolerance.at(i));
          comparable = false;
          fail(variant, call, fmt::format("wrong values in output {}: {}", i, s.result.reason), {{"output_index", i}});
          break;
        }
        try {
          taken.outputs.push_back(take_sample(t, settings_.samples));
        } catch (const std::exception& e) {
          comparable = false;
          fail(variant, call, fmt::format("output {} that cannot be compared", i),
               {{"output_index", i}, {"error", std::string(e.what()).substr(0, 1000)}});
        }
      }
      if (comparable) ++calls_checked_[variant];
      else taken.outputs.clear();  // a baseline's mismatch was noted: nothing left to compare
    }
  } catch (...) {
    elapsed();
    throw;
  }
  poison_outputs(output, tensors, keep);
  elapsed();
  return taken;
}

void CallAudit::compare_taken(const std::string& variant, const Taken& taken,
                              const std::function<std::vector<at::Tensor>()>& reference) {
  if (!settings_.compare || taken.outputs.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  struct Elapsed {
    const std::chrono::steady_clock::time_point start;
    double& seconds;
    ~Elapsed() { seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  } elapsed{start, seconds_};
  std::vector<at::Tensor> expected;
  try {
    expected = reference();
  } catch (Verdict& verdict) {
    // A rejection found on the way (the reference's weights changed) names the call it was for.
    if (verdict.status == Status::rejected && verdict.diagnostics.contains("integrity")) {
      auto& integrity = verdict.diagnostics["integrity"];
      integrity["call"] = taken.call.index;
      integrity["warmup"] = taken.call.warmup;
      integrity["input_set"] = taken.call.value_set;
      if (taken.call.fresh_seed >= 0) integrity["fresh_seed"] = taken.call.fresh_seed;
      verdict.message += fmt::format(" (before the reference ran for {})", describe_call(variant, taken.call));
    }
    throw;
  }
  if (expected.size() != taken.outputs.size())
    throw std::runtime_error(fmt::format("the reference returned {} outputs on fresh values, {} before",
                                         expected.size(), taken.outputs.size()));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const SampledComparison s = kbench::compare_taken(expected[i], taken.outputs[i], settings_.tolerance.at(i));
    if (s.result.ok) continue;
    nlohmann::json evidence = {{"output_index", i}, {"elements_checked", s.elements_compared},
                               {"mismatched_elements", s.bad_count}};
    if (s.bad_flat_index >= 0) {
      evidence["element_index"] = s.bad_flat_index;
      evidence["expected"] = s.expected_value;
      evidence["actual"] = s.actual_value;
    }
    return fail(variant, taken.call,
                fmt::format("wrong values in output {}: {}{}", i, s.result.reason,
                            settings_.tolerance.note(i)),
                evidence);
  }
}

void CallAudit::check(const std::string& variant, const CallRecord& call, const py::object& output,
                      std::vector<at::Tensor>& tensors) {
  if (!settings_.compare && !settings_.commit) return;
  const bool judged = variant == settings_.judged;
  const auto fail = [&](const std::string& what, nlohmann::json evidence) {
    this->fail(variant, call, what, std::move(evidence));
  };
  FlatOutputs flat;
  try {
    flat = flatten_outputs(output);
  } catch (const std::invalid_argument& e) {
    return fail(fmt::format("an output that is not tensors: {}", e.what()), {});
  }
  refuse_subclasses(variant, settings_.judged, flat);
  tensors = flat.tensors;
  if (flat.structure != structure_)
    return fail(fmt::format("output structure {}, {} expected", flat.structure, structure_), {});
  if (settings_.commit) {
    if (!judged) return;
    ++calls_checked_[variant];
    // Fixed now, revealed after the sample (end_sample): every byte of every output.
    std::vector<CommittedOutput> outputs;
    for (const auto& t : flat.tensors) {
      try {
        outputs.push_back(commit_output(t));
      } catch (const std::exception& e) {
        return fail(fmt::format("an output that cannot be committed: {}", std::string(e.what()).substr(0, 1000)), {});
      }
    }
    pending_.emplace_back(call, std::move(outputs));
    return;
  }
  const auto& expected = expected_.at(std::size_t(call.value_set));
  ++calls_checked_[variant];
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SampledComparison s;
    try {
      s = compare_sampled(expected[i], flat.tensors[i], settings_.samples, settings_.tolerance.at(i));
    } catch (const std::exception& e) {
      // e.g. an output with no storage, or on another device: the candidate's doing.
      return fail(fmt::format("output {} that cannot be compared", i),
                  {{"output_index", i}, {"error", std::string(e.what()).substr(0, 1000)}});
    }
    if (s.result.ok) continue;
    nlohmann::json evidence = {{"output_index", i}, {"elements_checked", s.elements_compared},
                               {"mismatched_elements", s.bad_count}};
    if (s.bad_flat_index >= 0) {
      evidence["element_index"] = s.bad_flat_index;
      evidence["expected"] = s.expected_value;  // NaN is written as null
      evidence["actual"] = s.actual_value;
    }
    return fail(fmt::format("wrong values in output {}: {}{}", i, s.result.reason,
                            settings_.tolerance.note(i)),
                evidence);
  }
}

void CallAudit::end_sample() {
  if (pending_.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> lines;
  for (const auto& [call, outputs] : pending_) {
    std::vector<OpenedOutput> roots;
    for (const auto& o : outputs) roots.push_back(o.opened);
    lines.push_back(commitment_line(call.index, call.value_set, call.warmup, roots, call.fresh_reveal));
  }
  SampleReveal reveal{sample_digest(lines), 0};
  try {
    reveal.seed = request_seed(reveal.digest);
  } catch (...) {
    pending_.clear();
    throw;
  }
  for (std::size_t place = 0; place < pending_.size(); ++place) {
    auto& [call, outputs] = pending_[place];
    SampledCall committed{call, int(reveals_.size()), int(place), {}};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      open_output(outputs[i], opening_positions(reveal.seed, place, i, outputs[i].tree.leaves(),
                                                std::size_t(settings_.samples)));
      committed.outputs.push_back(std::move(outputs[i].opened));
    }
    committed_.push_back(std::move(committed));
  }
  pending_.clear();
  reveals_.push_back(std::move(reveal));
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t CallAudit::request_seed(const std::string& digest) {
  std::optional<std::uint64_t> seed;
  try {
    seed = request_reveal(digest);
  } catch (const std::exception& e) {
    throw rejection("commitment", fmt::format("no reveal for a committed sample: {}", e.what()));
  }
  if (!seed) {  // no controller (a worker run by hand): the seed is this process's own
    std::random_device entropy;
    seed = std::uint64_t(entropy()) << 32 | std::uint64_t(entropy());
  }
  return *seed;
}

int CallAudit::fresh_reveal() {
  if (reveals_.empty()) {
    const auto start = std::chrono::steady_clock::now();
    SampleReveal opening{fresh_start_digest(), 0};
    opening.seed = request_seed(opening.digest);
    reveals_.push_back(std::move(opening));
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return int(reveals_.size()) - 1;
}

nlohmann::json CallAudit::summary() const {
  nlohmann::json out = notes_;
  out["calls"] = calls_seen_;  // every variant's, pre-import baseline runs included
  out["calls_checked"] = calls_checked_;
  out["elements_per_output"] = settings_.samples;
  out["input_sets"] = expected_.size();
  out["seconds"] = seconds_;
  if (calls_seen_ > 0) out["us_per_call"] = 1e6 * seconds_ / double(calls_seen_);
  return out;
}

}  // namespace kbench
