// The job file and a generated candidate's origin (model/codec.hpp).
#include <fmt/format.h>

#include "model/codec.hpp"
#include "model/tolerance.hpp"

namespace kbench {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json timing_json(const ResolvedTiming& t) {
  return {{"preset", to_string(t.preset)},
          {"mode", to_string(t.mode)},
          {"target_ci", t.target_ci},
          {"min_samples", t.min_samples},
          {"max_samples", t.max_samples},
          {"min_time_s", t.min_time_s},
          {"max_time_s", t.max_time_s},
          {"warmup", t.warmup},
          {"warmup_time_s", t.warmup_time_s},
          {"samples_per_round", t.samples_per_round},
          {"input_sets", t.input_sets}};
}

ResolvedTiming timing_from_json(const JsonFields& t) {
  ResolvedTiming timing;
  const auto mode = timing_mode_from_string(t.text("mode"));
  if (!mode) t.fail("mode", fmt::format("'{}' is not a timing mode", t.text("mode")));
  timing.mode = *mode;
  // Job files written before presets existed have none: they were `full`.
  const auto preset = timing_preset_from_string(t.text_or("preset", "full"));
  if (!preset) t.fail("preset", fmt::format("'{}' is not a timing preset", t.text_or("preset", "")));
  timing.preset = *preset;
  timing.target_ci = t.number("target_ci", "target_ci");
  timing.min_samples = t.integer("min_samples", "min_samples");
  timing.max_samples = t.integer("max_samples", "max_samples");
  timing.min_time_s = t.number("min_time_s", "min_time_s");
  timing.max_time_s = t.number("max_time_s", "max_time_s");
  timing.warmup = t.integer("warmup", "warmup");
  timing.warmup_time_s = t.number("warmup_time_s", "warmup_time_s");
  timing.samples_per_round = t.integer("samples_per_round", "samples_per_round");
  timing.input_sets = t.integer("input_sets", "input_sets");
  return timing;
}

nlohmann::json settings_json(const EvalSettings& s, const ResolvedTiming& timing) {
  nlohmann::json settings = {{"dtype", s.dtype},         {"seeds", s.seeds},
                             {"timing", timing_json(timing)}, {"baselines", s.baselines},
                             {"inductor_mode", s.inductor_mode}, {"timeout_s", s.timeout_s}};
  settings["compile_timeout_s"] = optional_json(s.compile_timeout_s);
  settings["run_timeout_s"] = optional_json(s.run_timeout_s);
  settings["build_timeout_s"] = optional_json(s.build_timeout_s);
  settings["memory_limit_gb"] = optional_json(s.memory_limit_gb);
  settings["output_cap_mb"] = s.output_cap_mb;
  settings["file_size_limit_gb"] = s.file_size_limit_gb;
  settings["atol"] = optional_json(s.atol);
  settings["rtol"] = optional_json(s.rtol);
  settings["checks"] = to_string(s.checks);
  settings["require_custom_kernel"] = s.require_custom_kernel;
  settings["min_custom_kernel_share"] = s.min_custom_kernel_share;
  settings["flag_speedup_above"] = s.flag_speedup_above;
  settings["alt_inputs"] = s.alt_inputs;
  settings["skip_checks"] = s.skip_checks;
  return settings;
}

// The settings as the suite loader accepted them (the same ranges, suite/number_range). The
// timing block arrives resolved; `settings.timing` stays the unresolved default.
EvalSettings settings_from_json(const JsonFields& s) {
  EvalSettings settings;
  settings.dtype = s.text("dtype");
  if (!is_known_dtype(settings.dtype)) s.fail("dtype", fmt::format("unknown dtype '{}'", settings.dtype));
  settings.seeds = s.integer("seeds", "seeds");
  settings.baselines = s.texts("baselines");
  settings.inductor_mode = s.text("inductor_mode");
  settings.timeout_s = s.number("timeout_s", "timeout_s");
  // The sandbox limits are the controller's business; a job file without them still loads.
  settings.compile_timeout_s = s.optional_number("compile_timeout_s", "compile_timeout_s");
  settings.run_timeout_s = s.optional_number("run_timeout_s", "run_timeout_s");
  settings.build_timeout_s = s.optional_number("build_timeout_s", "build_timeout_s");
  settings.memory_limit_gb = s.optional_number("memory_limit_gb", "memory_limit_gb");
  if (s.has("output_cap_mb")) settings.output_cap_mb = s.number("output_cap_mb", "output_cap_mb");
  if (s.has("file_size_limit_gb"))
    settings.file_size_limit_gb = s.number("file_size_limit_gb", "file_size_limit_gb");
  settings.atol = s.optional_number("atol", "atol");
  settings.rtol = s.optional_number("rtol", "rtol");
  const auto checks = check_level_from_string(s.text("checks"));
  if (!checks) s.fail("checks", fmt::format("'{}' is not a check level", s.text("checks")));
  settings.checks = *checks;
  settings.require_custom_kernel = s.flag("require_custom_kernel");
  settings.min_custom_kernel_share = s.number("min_custom_kernel_share", "min_custom_kernel_share");
  settings.flag_speedup_above = s.number("flag_speedup_above", "flag_speedup_above");
  settings.alt_inputs = s.flag("alt_inputs");
  settings.skip_checks = s.texts_or("skip_checks", {});
  return settings;
}

}  // namespace

Device device_from_json(const JsonFields& fields, const char* key) {
  const auto text = fields.text(key);
  const auto device = parse_device(text);
  if (!device) fields.fail(key, fmt::format("'{}' is not a device (cpu, cuda, cuda:N)", text));
  return *device;
}

nlohmann::json to_json(const Job& job) {
  nlohmann::json out = {{"problem_id", job.problem_id},
                        {"problem_file", job.problem_file.string()},
                        {"level", job.level},
                        {"tags", job.tags},
                        {"candidate", job.candidate},
                        {"candidate_file", job.candidate_file.string()},
                        {"device", to_string(job.device)},
                        {"settings", settings_json(job.settings, job.timing)},
                        {"size_overrides", job.size_overrides},
                        {"alt_size_overrides", job.alt_size_overrides}};
  if (job.origin) out["origin"] = to_json(*job.origin);
  return out;
}

Job job_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields j(json, where);
  Job job;
  job.problem_id = j.text("problem_id");
  job.problem_file = j.text("problem_file");
  job.level = j.integer("level", "level");
  job.tags = j.texts("tags");
  job.candidate = j.text("candidate");
  job.candidate_file = j.text("candidate_file");
  job.device = device_from_json(j, "device");
  const auto settings = j.fields("settings");
  job.settings = settings_from_json(settings);
  job.timing = timing_from_json(settings.fields("timing"));
  job.size_overrides = j.object("size_overrides");
  job.alt_size_overrides = j.object_or("alt_size_overrides", nlohmann::json::object());
  if (j.has("origin")) job.origin = candidate_origin_from_json(j.at("origin"), j.path("origin"));
  return job;
}

nlohmann::json to_json(const CandidateOrigin& origin) {
  return {{"sample", origin.sample},
          {"turn", origin.turn},
          {"model", origin.model},
          {"request", origin.request},
          {"choices_in_request", origin.choices_in_request},
          {"from_cache", origin.from_cache},
          {"usage", to_json(origin.usage)},
          {"cost_usd", optional_json(origin.cost_usd)},
          {"reply_file", origin.reply_file.string()},
          {"extraction", origin.extraction}};
}

CandidateOrigin candidate_origin_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields j(json, where);
  CandidateOrigin origin;
  origin.sample = j.integer("sample", "sample");
  origin.turn = j.integer("turn", "turn");
  origin.model = j.text("model");
  origin.request = j.text_or("request", "");
  origin.choices_in_request = j.integer_or("choices_in_request", "choices_in_request", 1);
  origin.from_cache = j.flag_or("from_cache", false);
  try {
    origin.usage = token_usage_from_json(j.object_or("usage", nlohmann::json::object()));
  } catch (const nlohmann::json::exception& e) {
    j.fail("usage", e.what());
  }
  origin.cost_usd = j.optional_number("cost_usd", "cost_usd");
  origin.reply_file = j.text_or("reply_file", "");
  origin.extraction = j.text_or("extraction", "");
  return origin;
}

}  // namespace kbench
