#pragma once
// An OpenAI-compatible chat-completions client: POST {base_url}/chat/completions with retries
// (retry_policy.hpp). The API key lives only in this object's memory: it is sent as a bearer
// header and scrubbed from every error message (docs/endpoints.md#api-key).
#include <functional>
#include <string>
#include <vector>

#include "core/token_usage.hpp"
#include "generate/chat_request.hpp"
#include "generate/http_client.hpp"
#include "generate/retry_policy.hpp"

namespace kbench {

struct ChatChoice {
  std::string content;  // "" when the server sent none (null or missing)
  std::string finish_reason;
};

struct ChatReply {
  std::vector<ChatChoice> choices;  // in the server's `index` order
  TokenUsage usage;
  std::string model;  // as the server named it
  nlohmann::json raw;  // the whole reply body
  int attempts = 1;    // tries it took
};

struct EndpointOptions {
  std::string base_url;  // the /v1 root; a trailing slash is fine
  std::string api_key;   // empty: no Authorization header (local servers)
  HttpTimeouts timeouts;
  RetryPolicy retry;
  std::function<void(const std::string&)> log;  // one line per retry; may be empty
  std::function<void(double)> sleep;            // tests shorten waits; default: really sleep
  std::function<bool()> cancelled;              // polled in transfers and waits (Ctrl-C); may be empty
};

// Parses a chat-completions reply body; throws std::runtime_error naming what is missing.
ChatReply parse_chat_reply(const std::string& body);

class ChatClient {
 public:
  explicit ChatClient(EndpointOptions options);
  // Asks for `n` choices. Throws InputError for 4xx other than 408/409/429 (status and the server's
  // message: a wrong model, key or URL), EnvironmentError when retries ran out, and
  // Error(kExitInterrupted) when `cancelled` turned true.
  ChatReply complete(const ChatRequest& request, int n, int first_sample) const;
  [[nodiscard]] std::string url() const;

 private:
  [[nodiscard]] std::string scrub(std::string text) const;
  EndpointOptions options_;
};

}  // namespace kbench
