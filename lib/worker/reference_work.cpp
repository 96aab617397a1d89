#include "worker/reference_work.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "core/hmac_sha256.hpp"
#include "integrity/tensor_merkle.hpp"
#include "model/codec.hpp"
#include "worker/tensor_blob.hpp"
#include "worker/tensor_bridge.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

constexpr const char* kMagic = "KBENCH-REFERENCE/1\n";
constexpr int kVersion = 2;

nlohmann::json put_trial(const Trial& trial, std::string& blob, bool blinded) {
  nlohmann::json expected = nlohmann::json::array();
  for (const auto& t : trial.expected) expected.push_back(put_tensor(t, blob, blinded));
  nlohmann::json j = {{"kind", to_string(trial.kind)},
                      {"seed", trial.seed},
                      {"model_seed", trial.model_seed},
                      {"input_digests", trial.input_digests},
                      {"expected", expected},
                      {"structure", trial.structure},
                      {"output_types", trial.output_types},
                      {"reference_mutates", trial.reference_mutates},
                      {"constants", trial.constants}};
  // What the expected outputs say, even this little, stays out of the blinded copy.
  if (!blinded) j["expected_max_abs"] = trial.expected_max_abs;
  return j;
}

TrialKind kind_from_string(const std::string& text) {
  for (TrialKind k : {TrialKind::seed, TrialKind::alt_distribution, TrialKind::alt_shape,
                      TrialKind::post_timing, TrialKind::timing})
    if (to_string(k) == text) return k;
  throw std::runtime_error("reference work: unknown trial kind " + text);
}

Trial get_trial(const nlohmann::json& j, const std::string& bytes, std::size_t base) {
  Trial trial;
  trial.kind = kind_from_string(j.at("kind").get<std::string>());
  trial.seed = j.at("seed").get<int>();
  trial.model_seed = j.at("model_seed").get<int>();
  trial.input_digests = j.at("input_digests").get<std::vector<std::string>>();
  try {
    for (const auto& t : j.at("expected")) trial.expected.push_back(get_tensor(t, bytes, base));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("reference work: ") + e.what());
  }
  trial.structure = j.at("structure").get<std::string>();
  trial.output_types = j.at("output_types").get<std::vector<std::string>>();
  trial.reference_mutates = j.at("reference_mutates").get<std::vector<bool>>();
  trial.constants = j.at("constants");
  if (j.contains("expected_max_abs")) trial.expected_max_abs = j.at("expected_max_abs").get<std::vector<double>>();
  return trial;
}

}  // namespace

std::string encode_reference_work(const ReferenceWork& work, bool blinded) {
  std::string blob;
  // With fresh values the judge runs the reference on each call's own inputs: the timing sets'
  // expected outputs are never compared (judge.cpp), so even the full work leaves them out.
  const bool timing_values = !blinded && !work.fresh_calls;
  // Reserved whole: appended tensor by tensor, GBs at full size were copied again at each growth.
  std::size_t value_bytes = 0;
  const auto add = [&value_bytes](const Trial& t) {
    for (const auto& e : t.expected) value_bytes += e.nbytes();
  };
  if (!blinded) {
    for (const auto& t : work.trials) add(t);
    if (timing_values)
      for (const auto& t : work.timing_sets) add(t);
    if (work.recheck) add(*work.recheck);
  }
  blob.reserve(value_bytes);
  nlohmann::json header = {{"version", kVersion}, {"blinded", blinded || work.blinded}};
  if (work.failure)
    header["failure"] = {{"status", to_string(work.failure->status)},
                         {"message", work.failure->message},
                         {"diagnostics", work.failure->diagnostics}};
  for (const auto* list : {&work.trials, &work.timing_sets}) {
    const bool values = list == &work.timing_sets ? timing_values : !blinded;
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : *list) out.push_back(put_trial(t, blob, !values));
    header[list == &work.trials ? "trials" : "timing_sets"] = out;
  }
  if (work.recheck) header["recheck"] = put_trial(*work.recheck, blob, blinded);
  header["baselines"] = work.baselines;
  header["baselines_deferred"] = work.baselines_deferred;
  header["short_baselines"] = work.short_baselines;
  // Blinded: not even the seeds; the controller sends them when the window opens.
  if (!blinded) {
    header["witness_seeds"] = work.witness_seeds;
  }
  header["witness_count"] = std::max(work.witness_count, work.witness_seeds.size());
  header["witness_overhead_s"] = work.witness_overhead_s;
  header["fresh_calls"] = work.fresh_calls;
  header["fresh_calls_why"] = work.fresh_calls_why;
  header["trial_notes"] = work.trial_notes;
  header["flags"] = work.flags;
  header["integrity_cost_s"] = work.integrity_cost_s;
  header["timing_comparison_skipped"] = work.timing_comparison_skipped;
  header["baseline_notes"] = work.baseline_notes;
  header["pre_import_median_ms"] = work.pre_import_median_ms;
  if (!blinded) header["trusted_baseline_ms"] = work.trusted_baseline_ms;
  header["pre_import"] = worker_message(work.pre_import);
  header["memory"] = {{"trials_on_device", work.trials_on_device},
                      {"sweep_bytes", work.sweep_bytes},
                      {"plan", work.memory_plan}};
  return frame_document(kMagic, header, blob);
}

ReferenceWork decode_reference_work(const std::string& bytes) {
  const auto [header, base] = unframe_document(kMagic, bytes, "reference work");
  ReferenceWork work;
  try {
    if (header.at("version").get<int>() != kVersion) throw std::runtime_error("reference work: unknown version");
    work.blinded = header.at("blinded").get<bool>();
    if (header.contains("failure")) {
      const auto& f = header["failure"];
      const auto status = status_from_string(f.at("status").get<std::string>());
      if (!status) throw std::runtime_error("reference work: unknown status");
      work.failure = Verdict{*status, f.at("message").get<std::string>(), f.at("diagnostics")};
    }
    for (const auto& t : header.at("trials")) work.trials.push_back(get_trial(t, bytes, base));
    for (const auto& t : header.at("timing_sets")) work.timing_sets.push_back(get_trial(t, bytes, base));
    if (header.contains("recheck")) work.recheck = get_trial(header["recheck"], bytes, base);
    work.baselines = header.at("baselines").get<std::vector<std::string>>();
    work.baselines_deferred = header.at("baselines_deferred").get<bool>();
    work.short_baselines = header.value("short_baselines", false);
    if (header.contains("witness_seeds")) work.witness_seeds = header["witness_seeds"].get<std::vector<int>>();
    work.witness_count = header.at("witness_count").get<std::size_t>();
    work.witness_overhead_s = header.at("witness_overhead_s").get<double>();
    work.fresh_calls = header.at("fresh_calls").get<bool>();
    work.fresh_calls_why = header.at("fresh_calls_why").get<std::string>();
    work.trial_notes = header.at("trial_notes").get<std::vector<std::string>>();
    work.flags = header.at("flags").get<std::vector<std::string>>();
    work.integrity_cost_s = header.at("integrity_cost_s").get<double>();
    work.timing_comparison_skipped = header.at("timing_comparison_skipped").get<bool>();
    work.baseline_notes = header.at("baseline_notes");
    work.pre_import_median_ms = header.at("pre_import_median_ms").get<std::map<std::string, double>>();
    if (header.contains("trusted_baseline_ms"))
      work.trusted_baseline_ms = header["trusted_baseline_ms"].get<std::map<std::string, std::vector<double>>>();
    apply_worker_message(header.at("pre_import"), work.pre_import);
    const auto& memory = header.at("memory");
    work.trials_on_device = memory.at("trials_on_device").get<int>();
    work.sweep_bytes = memory.at("sweep_bytes").get<long long>();
    work.memory_plan = memory.at("plan");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("reference work: malformed header: ") + e.what());
  }
  if (!work.failure && work.trials.empty()) throw std::runtime_error("reference work: no trials");
  return work;
}

std::string input_digest(const py::handle& input) {
  if (!is_tensor(input)) return to_hex(sha256(py::repr(input).cast<std::string>()));
  // The bytes by their Merkle root, computed where the tensor is (integrity/tensor_merkle.hpp):
  // on the GPU a pass over device memory, not a copy of every full-size input to the host and a
  // single-threaded hash of it in each of the job's processes.
  const at::Tensor t = to_tensor(input).detach();
  const Sha256Digest root = tensor_merkle_root(t);
  std::string data = fmt::format("{}:{}:", c10::toString(t.scalar_type()), fmt::join(t.sizes(), "x"));
  data.append(reinterpret_cast<const char*>(root.data()), root.size());
  return to_hex(sha256(data));
}

}  // namespace kbench
