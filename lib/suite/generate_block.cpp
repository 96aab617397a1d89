// read_generate_block(): the suite's `generate:` block, validated like the rest of the suite.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/generate_settings.hpp"
#include "suite/yaml_value.hpp"

namespace kbench {

const std::vector<std::string>& generate_backends() {
  static const std::vector<std::string> names = {"triton", "cuda"};
  return names;
}

const std::vector<std::string>& builtin_prompt_names() {
  static const std::vector<std::string> names = {"zero_shot", "one_shot"};
  return names;
}

namespace {

const std::vector<std::string> kGenerateKeys = {
    "base_url",    "model",       "api_key_env",        "samples",
    "turns",       "backend",     "prompt",             "temperature",
    "top_p",       "max_tokens",  "max_completion_tokens", "seed",
    "stop",        "reasoning_effort", "concurrency",   "connect_timeout_s",
    "request_timeout_s", "max_retries"};

class GenerateParser {
 public:
  explicit GenerateParser(std::filesystem::path file) : file_(std::move(file)) {}

  GenerateSettings parse(const YAML::Node& node) const {
    if (!node.IsMap()) fail(node, "`generate:` must be a mapping (see docs/suite-format.md#generate)");
    check_yaml_keys(file_, node, kGenerateKeys, "generate");
    GenerateSettings g;
    if (node["base_url"]) g.base_url = non_empty(node, "base_url");
    if (node["model"]) g.model = non_empty(node, "model");
    if (node["api_key_env"]) {
      g.api_key_env = non_empty(node, "api_key_env");
      g.api_key_env_given = true;
    }
    if (node["samples"]) g.samples = integer(node, "samples");
    if (node["turns"]) g.turns = integer(node, "turns");
    if (node["backend"]) g.backend = one_of(node, "backend", generate_backends());
    if (node["prompt"]) {
      const auto value = non_empty(node, "prompt");
      const auto& names = builtin_prompt_names();
      if (std::find(names.begin(), names.end(), value) != names.end()) {
        g.prompt = value;
      } else {
        const auto path = std::filesystem::absolute(file_.parent_path() / value).lexically_normal();
        if (!std::filesystem::is_regular_file(path))
          fail(node["prompt"], fmt::format("prompt template '{}' not found (a path relative to the "
                                           "suite file's folder, or one of: {})",
                                           path.string(), join(names, ", ")));
        g.prompt = path.string();
      }
    }
    auto& s = g.sampling;
    if (node["temperature"]) s.temperature = number(node, "temperature");
    if (node["top_p"]) s.top_p = number(node, "top_p");
    if (node["max_tokens"]) s.max_tokens = integer(node, "max_tokens");
    if (node["max_completion_tokens"]) s.max_completion_tokens = integer(node, "max_completion_tokens");
    if (node["seed"]) {
      const auto seed = node["seed"].IsScalar() ? yaml_scalar_integer(node["seed"].Scalar()) : std::nullopt;
      if (!seed) fail_at(file_, node["seed"], fmt::format("expected an integer, got '{}'", node["seed"].Scalar()));
      s.seed = *seed;
    }
    if (node["stop"]) s.stop = stop_list(node["stop"]);
    if (node["reasoning_effort"]) s.reasoning_effort = non_empty(node, "reasoning_effort");
    if (node["concurrency"]) g.concurrency = integer(node, "concurrency");
    if (node["connect_timeout_s"]) g.connect_timeout_s = number(node, "connect_timeout_s");
    if (node["request_timeout_s"]) g.request_timeout_s = number(node, "request_timeout_s");
    if (node["max_retries"]) g.max_retries = integer(node, "max_retries");
    return g;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    fail_at(file_, node, what);
  }

  template <typename T>
  T as(const YAML::Node& node, const char* type_name) const {
    return yaml_as<T>(file_, node, type_name);
  }

  std::string non_empty(const YAML::Node& map, const char* key) const {
    const auto value = as<std::string>(map[key], "a string");
    if (value.empty()) fail(map[key], fmt::format("`{}:` must not be empty", key));
    return value;
  }

  // Numbers within their documented range (suite/number_range.cpp), like every suite key.
  double number(const YAML::Node& map, const char* key) const { return yaml_number(file_, map[key], key); }
  // The integer keys' ranges all fit an int.
  int integer(const YAML::Node& map, const char* key) const { return int(number(map, key)); }

  std::string one_of(const YAML::Node& map, const char* key, const std::vector<std::string>& allowed) const {
    const auto value = as<std::string>(map[key], "a string");
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
    const auto hint = closest_match(value, allowed);
    fail(map[key], fmt::format("unknown {} '{}'{}; use one of: {}", key, value,
                               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                               join(allowed, ", ")));
  }

  std::vector<std::string> stop_list(const YAML::Node& node) const {
    std::vector<std::string> out;
    if (node.IsScalar()) {
      out.push_back(node.as<std::string>());
    } else if (node.IsSequence()) {
      for (const auto& item : node) out.push_back(as<std::string>(item, "a string"));
    } else {
      fail(node, "`stop` is a string or a list of at most 4 strings");
    }
    if (out.size() > 4) fail(node, fmt::format("`stop` holds at most 4 strings, got {}", out.size()));
    for (const auto& s : out)
      if (s.empty()) fail(node, "`stop` strings must not be empty");
    return out;
  }

  std::filesystem::path file_;
};

}  // namespace

GenerateSettings read_generate_block(const YAML::Node& node, const std::filesystem::path& suite_file) {
  return GenerateParser(suite_file).parse(node);
}

}  // namespace kbench
