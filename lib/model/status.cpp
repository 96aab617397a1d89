#include "model/status.hpp"

#include <array>
#include <utility>

namespace kbench {
namespace {
constexpr std::array<std::pair<Status, const char*>, 9> kNames = {{
    {Status::ok, "ok"},
    {Status::compile_error, "compile_error"},
    {Status::runtime_error, "runtime_error"},
    {Status::mismatch, "mismatch"},
    {Status::timeout, "timeout"},
    {Status::crashed, "crashed"},
    {Status::problem_error, "problem_error"},
    {Status::rejected, "rejected"},
    {Status::no_code, "no_code"},
}};
}  // namespace

std::string to_string(Status status) {
  for (const auto& [value, name] : kNames)
    if (value == status) return name;
  return "unknown";
}

std::optional<Status> status_from_string(const std::string& text) {
  for (const auto& [value, name] : kNames)
    if (text == name) return value;
  return std::nullopt;
}

}  // namespace kbench
