// The key, the record and the result's use of kept reference work (model/kept_reference.hpp).
#include <fmt/format.h>

#include "core/hmac_sha256.hpp"
#include "core/version.hpp"
#include "model/codec.hpp"

namespace kbench {
namespace {

nlohmann::json interval_json(const std::optional<Interval>& ci) {
  return ci ? nlohmann::json::array({ci->low, ci->high}) : nlohmann::json(nullptr);
}

std::optional<Interval> interval_from_json(const JsonFields& j, const char* key) {
  if (!j.has(key)) return std::nullopt;
  const auto& v = j.at(key);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
    j.fail(key, "a [low, high] pair of numbers expected");
  return Interval{v[0].get<double>(), v[1].get<double>()};
}

// The environment's fields a baseline's time depends on; the rest (hostname, paths) is not.
nlohmann::json environment_fields(const nlohmann::json& environment) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* name : {"device_name", "compute_capability", "sm_count", "gpu_memory_bytes", "cpu_threads",
                           "torch", "triton", "cuda", "python", "driver"})
    out[name] = environment.is_object() && environment.contains(name) ? environment[name] : nlohmann::json(nullptr);
  return out;
}

}  // namespace

KeptReferenceKey kept_reference_key(const Job& job, const std::string& problem_sha256,
                                    const nlohmann::json& environment) {
  // The job file's settings form (one codec), then only what reaches the baselines.
  const nlohmann::json settings = to_json(job).at("settings");
  nlohmann::json baseline_settings = nlohmann::json::object();
  for (const char* name : {"dtype", "seeds", "timing", "baselines", "inductor_mode", "checks", "skip_checks",
                           "alt_inputs", "atol", "rtol"})
    baseline_settings[name] = settings.contains(name) ? settings[name] : nlohmann::json(nullptr);
  KeptReferenceKey key;
  key.fields = {{"problem_id", job.problem_id},
                {"problem_sha256", problem_sha256},
                {"device_kind", job.device.is_cuda() ? "cuda" : "cpu"},
                {"settings", baseline_settings},
                {"size_overrides", job.size_overrides},
                {"environment", environment_fields(environment)},
                {"kbench_version", std::string(kVersion)}};
  key.digest = to_hex(sha256(key.fields.dump()));
  return key;
}

nlohmann::json to_json(const KeptReference& r) {
  nlohmann::json baselines = nlohmann::json::object();
  for (const auto& [name, m] : r.baselines) baselines[name] = raw_measurement_json(m);
  return {{"key", r.key.digest},
          {"key_fields", r.key.fields},
          {"created_unix_s", r.created_unix_s},
          {"baselines", baselines},
          {"protocol", r.protocol},
          {"baseline_notes", r.baseline_notes},
          {"reason", r.reason},
          {"uses", r.uses}};
}

KeptReference kept_reference_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields j(json, where);
  KeptReference r;
  r.key.digest = j.text("key");
  r.key.fields = j.object("key_fields");
  // A record is its key's: one whose fields do not hash to its name was altered.
  if (to_hex(sha256(r.key.fields.dump())) != r.key.digest) j.fail("key", "does not match key_fields");
  r.created_unix_s = j.number("created_unix_s");
  const auto baselines = j.fields("baselines");
  for (const auto& [name, value] : j.at("baselines").items())
    r.baselines[name] = measurement_from_json(JsonFields(value, baselines.path(name)));
  if (r.baselines.empty()) j.fail("baselines", "no baseline measured");
  r.protocol = j.object_or("protocol", nlohmann::json::object());
  r.baseline_notes = j.object_or("baseline_notes", nlohmann::json::object());
  r.reason = j.text_or("reason", "");
  r.uses = int(j.count("uses"));
  return r;
}

nlohmann::json to_json(const KeptReferenceUse& u) {
  return {{"kept", u.kept},
          {"key", u.key},
          {"age_s", u.age_s},
          {"uses", u.uses},
          {"refreshed", u.refreshed},
          {"refresh_s", u.refresh_s},
          {"drift_baseline", u.drift_baseline},
          {"drift", u.drift ? nlohmann::json(*u.drift) : nlohmann::json(nullptr)},
          {"drift_ci", interval_json(u.drift_ci)},
          {"drift_bound", u.drift_bound},
          {"fallback", u.fallback}};
}

KeptReferenceUse kept_reference_use_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields j(json, where);
  KeptReferenceUse u;
  u.kept = j.flag("kept");
  u.key = j.text("key");
  u.age_s = j.number("age_s");
  u.uses = int(j.count("uses"));
  u.refreshed = j.flag_or("refreshed", false);
  u.refresh_s = j.has("refresh_s") ? j.number("refresh_s") : 0.0;
  u.drift_baseline = j.text_or("drift_baseline", "");
  u.drift = j.optional_number("drift");
  u.drift_ci = interval_from_json(j, "drift_ci");
  u.drift_bound = j.has("drift_bound") ? j.number("drift_bound") : 0.0;
  u.fallback = j.text_or("fallback", "");
  return u;
}

}  // namespace kbench
