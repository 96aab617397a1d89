#pragma once
// Tokens one chat-completions request used, as the server reported them (`usage`). Reasoning and
// cached tokens are the OpenAI detail fields; servers that omit them leave 0.
#include <nlohmann/json.hpp>

namespace kbench {

struct TokenUsage {
  long long prompt = 0;
  long long completion = 0;  // includes reasoning tokens, as OpenAI counts them
  long long reasoning = 0;
  long long cached = 0;      // prompt tokens served from the server's prompt cache
  TokenUsage& operator+=(const TokenUsage& other) {
    prompt += other.prompt;
    completion += other.completion;
    reasoning += other.reasoning;
    cached += other.cached;
    return *this;
  }
  [[nodiscard]] long long total() const { return prompt + completion; }
};

// {"prompt": .., "completion": .., "reasoning": .., "cached": ..}: kbench's own spelling.
nlohmann::json to_json(const TokenUsage& usage);
TokenUsage token_usage_from_json(const nlohmann::json& json);
// The server's `usage` object (prompt_tokens, completion_tokens, *_tokens_details); absent: zeros.
TokenUsage token_usage_from_openai(const nlohmann::json& usage);

}  // namespace kbench
