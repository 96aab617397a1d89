#pragma once
// Results of a results file by "problem/candidate", the key the end-to-end tests assert on.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace kbench::test {

inline std::string result_key(const nlohmann::json& result) {
  return result["problem"].get<std::string>() + "/" + result["candidate"].get<std::string>();
}

inline std::map<std::string, nlohmann::json> results_by_key(const nlohmann::json& results) {
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& r : results) by_key[result_key(r)] = r;
  return by_key;
}

}  // namespace kbench::test
