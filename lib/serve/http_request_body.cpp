#include "serve/http_request_body.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "model/json_fields.hpp"
#include "report/json_input.hpp"

namespace kbench {
namespace {

const std::vector<std::string>& request_keys() {
  static const std::vector<std::string> keys = {"problem_id", "source", "backend", "request_id",
                                                "session_id", "wait"};
  return keys;
}

void reject_unknown_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                         const std::string& path) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string hint = closest_match(key, known);
    throw BadRequestBody(fmt::format("{}{}: unknown key{}; the keys are {}", path.empty() ? "" : path + ".",
                                     printable(key), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                     join(known, ", ")));
  }
}

// The values themselves (an unknown problem, a backend not offered, an id outside the URL-safe
// alphabet) are the Evaluator's to judge: it refuses them with the reason the server maps to 400.
std::optional<std::string> optional_text(const JsonFields& fields, const char* key) {
  if (!fields.has(key)) return std::nullopt;
  return fields.text(key);
}

EvaluationRequest request_from_json(const nlohmann::json& json, const std::string& path,
                                    const std::vector<std::string>& keys) {
  if (!json.is_object()) throw BadRequestBody(fmt::format("{}: must be a JSON object", path.empty() ? "body" : path));
  reject_unknown_keys(json, keys, path);
  const JsonFields fields(json, path);
  EvaluationRequest request;
  request.problem_id = fields.text("problem_id");
  request.source = fields.text("source");
  request.backend = fields.text_or("backend", request.backend);
  request.request_id = optional_text(fields, "request_id");
  if (!request.request_id) request.request_id = fresh_request_id();
  request.session_id = optional_text(fields, "session_id");
  return request;
}

nlohmann::json parse_body(const std::string& body) {
  if (body.empty()) throw BadRequestBody("the body is empty; send a JSON object (Content-Type: application/json)");
  try {
    return parse_json_text(body, "body");
  } catch (const InputError& e) {
    throw BadRequestBody(e.what());
  }
}

// The codec's errors name the path already; the server only needs one exception type.
template <typename Read>
auto reading(Read&& read) {
  try {
    return read();
  } catch (const CodecError& e) {
    throw BadRequestBody(e.what());
  }
}

}  // namespace

std::string fresh_request_id() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return fmt::format("h-{:016x}{:08x}", generator(), static_cast<std::uint32_t>(generator()));
}

EvaluateCall evaluate_call_from_body(const std::string& body, bool wait_query) {
  const nlohmann::json json = parse_body(body);
  return reading([&] {
    EvaluateCall call;
    call.request = request_from_json(json, "", request_keys());
    call.wait = wait_query || JsonFields(json, "").flag_or("wait", false);
    return call;
  });
}

BatchCall batch_call_from_body(const std::string& body, bool wait_query) {
  const nlohmann::json json = parse_body(body);
  return reading([&] {
    if (!json.is_object() || !json.contains("requests"))
      throw BadRequestBody("body: must be an object {\"requests\": [...], \"wait\": bool}");
    reject_unknown_keys(json, {"requests", "wait"}, "");
    const nlohmann::json& list = json.at("requests");
    if (!list.is_array() || list.empty() || list.size() > kMaxBatchRequests)
      throw BadRequestBody(fmt::format("requests: must be an array of 1 to {} request objects", kMaxBatchRequests));
    // `wait` belongs to the whole batch, not to one entry.
    std::vector<std::string> entry_keys = request_keys();
    entry_keys.pop_back();
    BatchCall call;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("requests[{}]", i);
      call.requests.push_back(request_from_json(list[i], path, entry_keys));
      if (!ids.insert(*call.requests.back().request_id).second)
        throw BadRequestBody(fmt::format("{}.request_id: '{}' appears twice in this batch", path,
                                         *call.requests.back().request_id));
    }
    call.wait = wait_query || JsonFields(json, "").flag_or("wait", false);
    return call;
  });
}

}  // namespace kbench
