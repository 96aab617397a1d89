#pragma once
// Reference work kept across jobs (docs/timing.md#kept-reference-work): the baselines' timings of
// one problem under one set of conditions, measured once by a trusted worker (no candidate code
// in its process) and reused by later jobs of the same key, which re-time only a short baseline
// sample beside their candidate to check for drift. Its key, the record and what a result says
// about it have one JSON form each, here (the record is a file the controller writes and reads;
// the use is a field of every result that had a store).
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/confidence.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"
#include "model/kept_reference_use.hpp"

namespace kbench {

// Everything a baseline's time depends on: the problem's bytes, the job's settings that reach
// the baselines (dtype, seeds, sizes, timing, baselines, Inductor mode, checks: the call audit
// runs around every sample), the device's kind and model, and the software (torch, triton,
// CUDA, Python, kbench). Candidate-side settings (timeouts, limits) are left out.
struct KeptReferenceKey {
  nlohmann::json fields = nlohmann::json::object();
  std::string digest;  // SHA-256 (hex) of fields.dump(): the record's folder name
};
// `problem_sha256`: of the problem file's bytes; `environment`: the run's probe (versions, device name).
KeptReferenceKey kept_reference_key(const Job& job, const std::string& problem_sha256,
                                    const nlohmann::json& environment);

// What the trusted worker measured: each baseline timed by the job's full protocol (the
// baselines interleaved with each other), with no candidate ever in that process.
struct KeptReference {
  KeptReferenceKey key;
  double created_unix_s = 0;
  std::map<std::string, Measurement> baselines;  // "eager", "inductor"
  nlohmann::json protocol = nlohmann::json::object();        // the trusted run's rounds, clocks
  nlohmann::json baseline_notes = nlohmann::json::object();  // e.g. Inductor's warning
  std::string reason;  // why it was measured: "first use", or the drift that refreshed it
  int uses = 0;        // jobs that reused it so far
};
nlohmann::json to_json(const KeptReference& record);
// Throws CodecError naming the JSON path.
KeptReference kept_reference_from_json(const nlohmann::json& json, const std::string& where);

nlohmann::json to_json(const KeptReferenceUse& use);
KeptReferenceUse kept_reference_use_from_json(const nlohmann::json& json, const std::string& where);

}  // namespace kbench
