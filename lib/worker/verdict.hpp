#pragma once
// A failure with the status it earns; thrown inside the evaluation, caught once in its run().
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

#include "model/status.hpp"

namespace kbench {

struct Verdict {
  Status status;
  std::string message;
  nlohmann::json diagnostics = nlohmann::json::object();
};

// A failed integrity check: status `rejected`, the check's name in the message and in
// diagnostics.integrity (docs/integrity.md).
inline Verdict rejection(const std::string& check, const std::string& evidence,
                         nlohmann::json extra = nlohmann::json::object()) {
  extra["check"] = check;
  extra["evidence"] = evidence;
  return {Status::rejected, fmt::format("integrity check {} failed: {}", check, evidence),
          {{"integrity", extra}}};
}

}  // namespace kbench
