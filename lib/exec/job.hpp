#pragma once
// One unit of work: a problem x candidate on one device. The controller writes it as JSON for
// the worker process, which needs nothing else to run.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/eval_settings.hpp"
#include "suite/suite.hpp"

namespace kbench {

struct Job {
  std::string problem_id;
  std::filesystem::path problem_file;
  int level = 1;
  std::vector<std::string> tags;
  std::string candidate;  // display name: the candidate's file name
  std::filesystem::path candidate_file;
  std::string device;  // "cpu" or "cuda:N"
  EvalSettings settings;
  nlohmann::json size_overrides = nlohmann::json::object();  // constants for this device kind
  nlohmann::json alt_size_overrides = nlohmann::json::object();  // the alt-shape trial's; {}: none
};

nlohmann::json to_json(const Job& job);
Job job_from_json(const nlohmann::json& json);

// "cpu" for "cpu", "cuda" for "cuda" or "cuda:N".
std::string device_kind(const std::string& device);

// The candidate files of one problem: its patterns expanded ({id} -> problem id; relative to the
// suite file's folder), regular files only, sorted, each once. Empty when nothing matches.
std::vector<std::filesystem::path> candidate_files(const Suite& suite, const Problem& problem);

// Expands each problem's candidate patterns ({id} -> problem id; paths relative to the suite
// file) into jobs, in suite order. Throws InputError when a problem matches no candidate file.
std::vector<Job> plan_jobs(const Suite& suite, const std::string& device);

}  // namespace kbench
