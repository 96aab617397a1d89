#include "model/job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>

#include <algorithm>

#include "core/error.hpp"

namespace kbench {

nlohmann::json to_json(const Job& job) {
  const auto& s = job.settings;
  const ResolvedTiming t = resolve_timing(s.timing, device_kind(job.device));
  nlohmann::json timing = {{"mode", to_string(t.mode)},
                           {"target_ci", t.target_ci},
                           {"min_samples", t.min_samples},
                           {"max_samples", t.max_samples},
                           {"min_time_s", t.min_time_s},
                           {"max_time_s", t.max_time_s},
                           {"warmup", t.warmup},
                           {"warmup_time_s", t.warmup_time_s},
                           {"samples_per_round", t.samples_per_round},
                           {"input_sets", t.input_sets}};
  nlohmann::json settings = {{"dtype", s.dtype},         {"seeds", s.seeds},
                             {"timing", timing},         {"baselines", s.baselines},
                             {"inductor_mode", s.inductor_mode}, {"timeout_s", s.timeout_s}};
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  settings["compile_timeout_s"] = optional(s.compile_timeout_s);
  settings["run_timeout_s"] = optional(s.run_timeout_s);
  settings["build_timeout_s"] = optional(s.build_timeout_s);
  settings["memory_limit_gb"] = optional(s.memory_limit_gb);
  settings["output_cap_mb"] = s.output_cap_mb;
  settings["file_size_limit_gb"] = s.file_size_limit_gb;
  settings["atol"] = s.atol ? nlohmann::json(*s.atol) : nlohmann::json(nullptr);
  settings["rtol"] = s.rtol ? nlohmann::json(*s.rtol) : nlohmann::json(nullptr);
  settings["checks"] = to_string(s.checks);
  settings["require_custom_kernel"] = s.require_custom_kernel;
  settings["min_custom_kernel_share"] = s.min_custom_kernel_share;
  settings["flag_speedup_above"] = s.flag_speedup_above;
  settings["alt_inputs"] = s.alt_inputs;
  settings["skip_checks"] = s.skip_checks;
  nlohmann::json out = {{"problem_id", job.problem_id},
          {"problem_file", job.problem_file.string()},
          {"level", job.level},
          {"tags", job.tags},
          {"candidate", job.candidate},
          {"candidate_file", job.candidate_file.string()},
          {"device", job.device},
          {"settings", settings},
          {"size_overrides", job.size_overrides},
          {"alt_size_overrides", job.alt_size_overrides}};
  if (job.origin) out["origin"] = to_json(*job.origin);
  return out;
}

Job job_from_json(const nlohmann::json& json) {
  Job job;
  job.problem_id = json.at("problem_id").get<std::string>();
  job.problem_file = json.at("problem_file").get<std::string>();
  job.level = json.at("level").get<int>();
  job.tags = json.at("tags").get<std::vector<std::string>>();
  job.candidate = json.at("candidate").get<std::string>();
  job.candidate_file = json.at("candidate_file").get<std::string>();
  job.device = json.at("device").get<std::string>();
  const auto& s = json.at("settings");
  job.settings.dtype = s.at("dtype").get<std::string>();
  job.settings.seeds = s.at("seeds").get<int>();
  // The worker gets fully resolved timing, so every field is set.
  const auto& t = s.at("timing");
  auto& timing = job.settings.timing;
  timing.mode = timing_mode_from_string(t.at("mode").get<std::string>()).value_or(TimingMode::cold);
  timing.target_ci = t.at("target_ci").get<double>();
  timing.min_samples = t.at("min_samples").get<int>();
  timing.max_samples = t.at("max_samples").get<int>();
  timing.min_time_s = t.at("min_time_s").get<double>();
  timing.max_time_s = t.at("max_time_s").get<double>();
  timing.warmup = t.at("warmup").get<int>();
  timing.warmup_time_s = t.at("warmup_time_s").get<double>();
  timing.samples_per_round = t.at("samples_per_round").get<int>();
  timing.input_sets = t.at("input_sets").get<int>();
  job.settings.baselines = s.at("baselines").get<std::vector<std::string>>();
  job.settings.inductor_mode = s.at("inductor_mode").get<std::string>();
  job.settings.timeout_s = s.at("timeout_s").get<double>();
  // The sandbox limits are the controller's business; a job file without them still loads.
  auto optional = [&](const char* key, std::optional<double>& out) {
    if (s.contains(key) && !s[key].is_null()) out = s[key].get<double>();
  };
  optional("compile_timeout_s", job.settings.compile_timeout_s);
  optional("run_timeout_s", job.settings.run_timeout_s);
  optional("build_timeout_s", job.settings.build_timeout_s);
  optional("memory_limit_gb", job.settings.memory_limit_gb);
  job.settings.output_cap_mb = s.value("output_cap_mb", job.settings.output_cap_mb);
  job.settings.file_size_limit_gb = s.value("file_size_limit_gb", job.settings.file_size_limit_gb);
  if (!s.at("atol").is_null()) job.settings.atol = s.at("atol").get<double>();
  if (!s.at("rtol").is_null()) job.settings.rtol = s.at("rtol").get<double>();
  job.settings.checks =
      check_level_from_string(s.at("checks").get<std::string>()).value_or(CheckLevel::strict);
  job.settings.require_custom_kernel = s.at("require_custom_kernel").get<bool>();
  job.settings.min_custom_kernel_share = s.at("min_custom_kernel_share").get<double>();
  job.settings.flag_speedup_above = s.at("flag_speedup_above").get<double>();
  job.settings.alt_inputs = s.at("alt_inputs").get<bool>();
  job.settings.skip_checks = s.value("skip_checks", std::vector<std::string>{});
  job.size_overrides = json.at("size_overrides");
  job.alt_size_overrides = json.value("alt_size_overrides", nlohmann::json::object());
  if (json.contains("origin")) job.origin = candidate_origin_from_json(json["origin"]);
  return job;
}

std::string device_kind(const std::string& device) {
  return device.rfind("cuda", 0) == 0 ? "cuda" : "cpu";
}

namespace {

std::string expand_id(std::string pattern, const std::string& id) {
  for (auto at = pattern.find("{id}"); at != std::string::npos; at = pattern.find("{id}", at))
    pattern.replace(at, 4, id);
  return pattern;
}

std::vector<std::filesystem::path> glob_files(const std::string& pattern) {
  glob_t matches{};
  std::vector<std::filesystem::path> files;
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
      std::filesystem::path path = matches.gl_pathv[i];
      if (std::filesystem::is_regular_file(path)) files.push_back(path.lexically_normal());
    }
  }
  globfree(&matches);
  return files;
}

Job make_job(const Problem& problem, const std::filesystem::path& file, const std::string& device) {
  Job job;
  job.problem_id = problem.id;
  job.problem_file = problem.file;
  job.level = problem.level;
  job.tags = problem.tags;
  job.candidate = file.filename().string();
  job.candidate_file = file;
  job.device = device;
  job.settings = problem.settings;
  const auto kind = device_kind(device);
  if (auto it = problem.sizes.find(kind); it != problem.sizes.end()) job.size_overrides = it->second;
  if (auto it = problem.alt_sizes.find(kind); it != problem.alt_sizes.end())
    job.alt_size_overrides = it->second;
  return job;
}

}  // namespace

std::vector<std::filesystem::path> candidate_files(const Suite& suite, const Problem& problem) {
  const auto base = suite.file.parent_path();
  std::vector<std::filesystem::path> files;
  for (const auto& pattern : problem.candidate_patterns) {
    const auto found = glob_files((base / expand_id(pattern, problem.id)).string());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::vector<Job> plan_generated_jobs(const Suite& suite, const std::string& device,
                                     const std::vector<GeneratedCandidate>& candidates) {
  std::vector<Job> jobs;
  for (const auto& candidate : candidates) {
    const auto problem = std::find_if(suite.problems.begin(), suite.problems.end(),
                                      [&](const Problem& p) { return p.id == candidate.problem_id; });
    if (problem == suite.problems.end())
      throw std::logic_error("generated candidate for an unknown problem " + candidate.problem_id);
    Job job = make_job(*problem, candidate.source_file.value_or(candidate.origin.reply_file), device);
    // "sample-0-turn-1.py", also for a reply without code: one name per sample and turn.
    job.candidate = fmt::format("sample-{}-turn-{}.py", candidate.origin.sample, candidate.origin.turn);
    job.origin = candidate.origin;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<Job> plan_jobs(const Suite& suite, const std::string& device) {
  std::vector<Job> jobs;
  const auto base = suite.file.parent_path();
  for (const auto& problem : suite.problems) {
    const std::vector<std::filesystem::path> files = candidate_files(suite, problem);
    if (files.empty()) {
      throw InputError(fmt::format(
          "{}: problem '{}': no candidate file matches {} (patterns are relative to {})",
          problem.where.str(), problem.id, fmt::join(problem.candidate_patterns, ", "),
          base.string()));
    }
    for (const auto& file : files) jobs.push_back(make_job(problem, file, device));
  }
  return jobs;
}

}  // namespace kbench
