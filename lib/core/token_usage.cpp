#include "core/token_usage.hpp"

namespace kbench {
namespace {

long long count(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return 0;
  return object[key].get<long long>();
}

}  // namespace

nlohmann::json to_json(const TokenUsage& usage) {
  return {{"prompt", usage.prompt},
          {"completion", usage.completion},
          {"reasoning", usage.reasoning},
          {"cached", usage.cached}};
}

TokenUsage token_usage_from_json(const nlohmann::json& json) {
  return {count(json, "prompt"), count(json, "completion"), count(json, "reasoning"),
          count(json, "cached")};
}

TokenUsage token_usage_from_openai(const nlohmann::json& usage) {
  TokenUsage out;
  out.prompt = count(usage, "prompt_tokens");
  out.completion = count(usage, "completion_tokens");
  if (usage.is_object() && usage.contains("completion_tokens_details"))
    out.reasoning = count(usage["completion_tokens_details"], "reasoning_tokens");
  if (usage.is_object() && usage.contains("prompt_tokens_details"))
    out.cached = count(usage["prompt_tokens_details"], "cached_tokens");
  return out;
}

}  // namespace kbench
