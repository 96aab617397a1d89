#include "generate/chat_request.hpp"

#include "core/hmac_sha256.hpp"

namespace kbench {
namespace {

nlohmann::json canonical(const ChatRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  nlohmann::json body = {{"model", request.model}, {"messages", messages}};
  const auto& s = request.sampling;
  if (s.temperature) body["temperature"] = *s.temperature;
  if (s.top_p) body["top_p"] = *s.top_p;
  if (s.max_tokens) body["max_tokens"] = *s.max_tokens;
  if (s.max_completion_tokens) body["max_completion_tokens"] = *s.max_completion_tokens;
  if (s.seed) body["seed"] = *s.seed;
  if (!s.stop.empty()) body["stop"] = s.stop;
  if (s.reasoning_effort) body["reasoning_effort"] = *s.reasoning_effort;
  return body;
}

}  // namespace

nlohmann::json request_body(const ChatRequest& request, int n, int first_sample) {
  nlohmann::json body = canonical(request);
  if (n != 1) body["n"] = n;
  if (request.sampling.seed) body["seed"] = *request.sampling.seed + first_sample;
  return body;
}

std::string sample_cache_key(const ChatRequest& request, int sample) {
  // nlohmann::json objects keep keys sorted, so dump() is canonical.
  const nlohmann::json keyed = {{"request", canonical(request)}, {"sample", sample}, {"v", 1}};
  return to_hex(sha256(keyed.dump()));
}

}  // namespace kbench

namespace kbench {

std::string request_id(const nlohmann::json& body) { return to_hex(sha256(body.dump())).substr(0, 16); }

}  // namespace kbench
