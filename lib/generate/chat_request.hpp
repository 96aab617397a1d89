#pragma once
// One chat-completions request and its canonical form: the request body sent to the server, and
// the cache key of each sample (docs/endpoints.md#cache).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/generate_settings.hpp"

namespace kbench {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  SamplingParams sampling;
};

// The body of POST /chat/completions asking for `n` choices. With a seed, a request whose first
// sample is `first_sample` sends seed + first_sample, so requests split by a server that ignores
// `n` do not repeat one another.
nlohmann::json request_body(const ChatRequest& request, int n, int first_sample);

// SHA-256 (hex) of the canonical request (model, messages, sampling parameters; keys sorted,
// no `n`) and the sample index: the same question asked again is served from the cache.
std::string sample_cache_key(const ChatRequest& request, int sample);

// The first 16 hex digits of SHA-256 of a request body: the `request` a candidate's origin names
// (several samples may share one).
std::string request_id(const nlohmann::json& body);

}  // namespace kbench
