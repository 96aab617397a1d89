#include "model/candidate_origin.hpp"

namespace kbench {

nlohmann::json to_json(const CandidateOrigin& origin) {
  return {{"sample", origin.sample},
          {"turn", origin.turn},
          {"model", origin.model},
          {"request", origin.request},
          {"choices_in_request", origin.choices_in_request},
          {"from_cache", origin.from_cache},
          {"usage", to_json(origin.usage)},
          {"cost_usd", origin.cost_usd ? nlohmann::json(*origin.cost_usd) : nlohmann::json(nullptr)},
          {"reply_file", origin.reply_file.string()},
          {"extraction", origin.extraction}};
}

CandidateOrigin candidate_origin_from_json(const nlohmann::json& json) {
  CandidateOrigin origin;
  origin.sample = json.at("sample").get<int>();
  origin.turn = json.at("turn").get<int>();
  origin.model = json.at("model").get<std::string>();
  origin.request = json.value("request", "");
  origin.choices_in_request = json.value("choices_in_request", 1);
  origin.from_cache = json.value("from_cache", false);
  origin.usage = token_usage_from_json(json.value("usage", nlohmann::json::object()));
  if (json.contains("cost_usd") && json["cost_usd"].is_number())
    origin.cost_usd = json["cost_usd"].get<double>();
  origin.reply_file = json.value("reply_file", "");
  origin.extraction = json.value("extraction", "");
  return origin;
}

}  // namespace kbench
