#include "run/job_planning.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>

#include <algorithm>

#include "core/error.hpp"

namespace kbench {

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

}  // namespace

Job problem_job(const Problem& problem, const Device& device) {
  Job job;
  job.problem_id = problem.id;
  job.problem_file = problem.file;
  job.level = problem.level;
  job.tags = problem.tags;
  job.device = device;
  job.settings = problem.settings;
  job.timing = resolve_timing(problem.settings.timing, device.kind);
  const auto kind = to_string(device.kind);
  if (auto it = problem.sizes.find(kind); it != problem.sizes.end()) job.size_overrides = it->second;
  if (auto it = problem.alt_sizes.find(kind); it != problem.alt_sizes.end())
    job.alt_size_overrides = it->second;
  return job;
}

Job make_job(const Problem& problem, const std::filesystem::path& file, const Device& device) {
  Job job = problem_job(problem, device);
  job.candidate = file.filename().string();
  job.candidate_file = file;
  return job;
}

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

std::vector<Job> plan_generated_jobs(const Suite& suite, const Device& device,
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

std::vector<Job> plan_jobs(const Suite& suite, const Device& device) {
  std::vector<Job> jobs;
  const auto base = suite.file.parent_path();
  for (const auto& problem : suite.problems) {
    const std::vector<std::filesystem::path> files = candidate_files(suite, problem);
    if (files.empty()) {
      // Suite patterns are relative to the suite's folder; --candidates ones arrive absolute
      // (from the working directory, suite_runner.cpp), so the folder is named only for the former.
      const bool any_relative = std::any_of(problem.candidate_patterns.begin(), problem.candidate_patterns.end(),
                                            [](const std::string& p) { return std::filesystem::path(p).is_relative(); });
      throw InputError(fmt::format(
          "{}: problem '{}': no candidate file matches {}{}", problem.where.str(),
          problem.id, fmt::join(problem.candidate_patterns, ", "),
          any_relative ? fmt::format(" (suite patterns are relative to {})", base.string()) : ""));
    }
    for (const auto& file : files) jobs.push_back(make_job(problem, file, device));
  }
  return jobs;
}

}  // namespace kbench
