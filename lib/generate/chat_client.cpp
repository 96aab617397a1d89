#include "generate/chat_client.hpp"

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <thread>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kbench {
namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The server's own words: OpenAI's {"error": {"message": ...}}, a bare {"error": "..."}, or
// the body's start.
std::string server_message(const std::string& body) {
  try {
    const auto json = nlohmann::json::parse(body);
    if (json.contains("error")) {
      const auto& e = json["error"];
      if (e.is_string()) return e.get<std::string>();
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        return e["message"].get<std::string>();
    }
    if (json.contains("message") && json["message"].is_string()) return json["message"].get<std::string>();
    if (json.contains("detail") && json["detail"].is_string()) return json["detail"].get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  std::string text = body.substr(0, 300);
  for (auto& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text.empty() ? "(empty body)" : text;
}

}  // namespace

ChatReply parse_chat_reply(const std::string& body) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error&) {
    throw std::runtime_error(fmt::format("the reply is not JSON (starts with '{}')",
                                         body.substr(0, 80)));
  }
  if (!json.is_object() || !json.contains("choices") || !json["choices"].is_array())
    throw std::runtime_error("the reply has no `choices` array");
  ChatReply reply;
  reply.raw = json;
  reply.model = json.value("model", "");
  if (json.contains("usage")) reply.usage = token_usage_from_openai(json["usage"]);
  std::vector<std::pair<int, ChatChoice>> indexed;
  int position = 0;
  for (const auto& c : json["choices"]) {
    if (!c.is_object()) throw std::runtime_error("a choice is not an object");
    ChatChoice choice;
    if (c.contains("message") && c["message"].is_object()) {
      const auto& m = c["message"];
      if (m.contains("content") && m["content"].is_string()) choice.content = m["content"].get<std::string>();
    } else if (c.contains("text") && c["text"].is_string()) {
      choice.content = c["text"].get<std::string>();  // completions-style servers
    } else {
      throw std::runtime_error("a choice has no `message`");
    }
    if (c.contains("finish_reason") && c["finish_reason"].is_string())
      choice.finish_reason = c["finish_reason"].get<std::string>();
    const int index = c.contains("index") && c["index"].is_number_integer() ? c["index"].get<int>() : position;
    indexed.emplace_back(index, std::move(choice));
    ++position;
  }
  std::stable_sort(indexed.begin(), indexed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [index, choice] : indexed) reply.choices.push_back(std::move(choice));
  return reply;
}

ChatClient::ChatClient(EndpointOptions options) : options_(std::move(options)) {
  while (!options_.base_url.empty() && options_.base_url.back() == '/') options_.base_url.pop_back();
  if (!options_.sleep)
    options_.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
}

std::string ChatClient::url() const { return options_.base_url + "/chat/completions"; }

std::string ChatClient::scrub(std::string text) const {
  const auto& key = options_.api_key;
  if (key.empty()) return text;
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at))
    text.replace(at, key.size(), "[API key]");
  return text;
}

ChatReply ChatClient::complete(const ChatRequest& request, int n, int first_sample) const {
  const std::string body = request_body(request, n, first_sample).dump();
  std::vector<std::string> headers;
  if (!options_.api_key.empty()) headers.push_back("Authorization: Bearer " + options_.api_key);
  thread_local std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::string last_problem;
  for (int attempt = 0;; ++attempt) {
    const HttpResponse response = http_post_json(url(), body, headers, options_.timeouts, options_.cancelled);
    std::optional<double> retry_after;
    if (response.cancelled) throw Error(kExitInterrupted, "interrupted during generation");
    if (response.status == 0) {
      last_problem = response.timed_out
                         ? fmt::format("no complete reply within {} s (request_timeout_s)",
                                       options_.timeouts.request_s)
                         : fmt::format("connection failed: {}", response.transport_message);
    } else if (response.status >= 200 && response.status < 300) {
      try {
        ChatReply reply = parse_chat_reply(response.body);
        reply.attempts = attempt + 1;
        return reply;
      } catch (const std::runtime_error& e) {
        // A cut or garbled body (a proxy, an overloaded server) is worth another try.
        last_problem = fmt::format("HTTP {} but {}", response.status, e.what());
      }
    } else if (is_retryable_status(response.status)) {
      last_problem = fmt::format("HTTP {}: {}", response.status, server_message(response.body));
      if (auto it = response.headers.find("retry-after"); it != response.headers.end())
        retry_after = parse_retry_after(it->second, unix_now());
    } else {
      throw InputError(scrub(fmt::format(
          "{}: HTTP {} from the model endpoint: {} (check the model name, base_url and the API key "
          "variable; docs/endpoints.md)",
          url(), response.status, server_message(response.body))));
    }
    if (attempt >= options_.retry.max_retries) {
      throw EnvironmentError(scrub(fmt::format("{}: giving up after {} tries; last: {}", url(),
                                               attempt + 1, last_problem)));
    }
    const double delay = retry_delay_s(options_.retry, attempt + 1, retry_after, unit(random));
    if (options_.log)
      options_.log(scrub(fmt::format("kbench: {} ({}); retry {} of {} in {:.1f} s", url(), last_problem,
                                     attempt + 1, options_.retry.max_retries, delay)));
    // Sleep in short steps so Ctrl-C is not held up by a long retry-after.
    for (double left = delay; left > 0; left -= 0.1) {
      if (options_.cancelled && options_.cancelled()) throw Error(kExitInterrupted, "interrupted during generation");
      options_.sleep(std::min(0.1, left));
    }
  }
}

}  // namespace kbench
