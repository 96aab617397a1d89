#pragma once
// The suite's `generate:` block: candidates come from an OpenAI-compatible model endpoint
// instead of files (docs/endpoints.md, docs/suite-format.md#generate). CLI flags of `kbench run`
// override each field (run/suite_runner.cpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace kbench {

struct SamplingParams {
  std::optional<double> temperature;  // [0, 2]
  std::optional<double> top_p;        // (0, 1]
  std::optional<int> max_tokens;
  std::optional<int> max_completion_tokens;  // reasoning models (OpenAI o-series, gpt-5)
  std::optional<long long> seed;
  std::vector<std::string> stop;  // at most 4 (the OpenAI limit)
  std::optional<std::string> reasoning_effort;  // passed through as written
};

struct GenerateSettings {
  std::string base_url;  // the `/v1` root, e.g. http://127.0.0.1:8000/v1
  std::string model;
  std::string api_key_env = "OPENAI_API_KEY";
  bool api_key_env_given = false;  // written in the suite or on the CLI: then it must be set
  int samples = 1;
  int turns = 1;
  std::string backend = "triton";  // "triton" or "cuda"
  // A template file (absolute), or empty for the backend's built-in `one_shot` template;
  // `zero_shot` / `one_shot` name the built-in ones (configs/prompts/).
  std::string prompt = "one_shot";
  SamplingParams sampling;
  int concurrency = 4;              // requests in flight at once
  double connect_timeout_s = 10;
  double request_timeout_s = 600;   // one request, the whole reply
  int max_retries = 5;
};

// The backends a prompt can target, and the built-in template names.
const std::vector<std::string>& generate_backends();
const std::vector<std::string>& builtin_prompt_names();

// Parses `generate:` (paths relative to `suite_file`'s folder). Throws InputError with
// file:line:col, did-you-mean hints and the allowed range of each number.
GenerateSettings read_generate_block(const YAML::Node& node, const std::filesystem::path& suite_file);

}  // namespace kbench
