#pragma once
// One YAML value read with an error that points at it ("file:line:col: what"): shared by the suite
// loader and the `generate:` block, so both report errors the same way.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/number_range.hpp"

namespace kbench {

[[noreturn]] inline void fail_at(const std::filesystem::path& file, const YAML::Node& node,
                                 const std::string& what) {
  const auto mark = node.Mark();
  if (mark.line < 0) throw InputError(fmt::format("{}: {}", file.string(), what));
  throw InputError(fmt::format("{}:{}:{}: {}", file.string(), mark.line + 1, mark.column + 1, what));
}

template <typename T>
T yaml_as(const std::filesystem::path& file, const YAML::Node& node, const char* type_name) {
  if (!node.IsScalar()) fail_at(file, node, fmt::format("expected {}", type_name));
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    fail_at(file, node, fmt::format("expected {}, got '{}'", type_name, node.Scalar()));
  }
}

// A YAML 1.2 number (`1`, `-2.5e3`, `+.5`, `.inf`, `.nan`) without iostreams or the C++ global
// locale: yaml-cpp's own conversion reads it through a std::stringstream, and inside a trainer's
// process on the H200 (torch and CUDA libraries loaded) that jumped through a broken num_get
// facet and crashed the in-process Evaluator as it loaded its suite.
inline std::optional<double> yaml_scalar_number(std::string_view text) {
  std::string_view body = text;
  const bool negative = !body.empty() && body.front() == '-';
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
  if (body == ".inf" || body == ".Inf" || body == ".INF") return negative ? -HUGE_VAL : HUGE_VAL;
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return std::nan("");
  if (body.empty() || body.front() == '-' || body.front() == '+') return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (error != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -value : value;
}

// An integer scalar (`42`, `-7`, `+3`), the same way.
inline std::optional<long long> yaml_scalar_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A number: an unquoted scalar, finite and within the documented range of `key`
// (suite/number_range.hpp), or one error naming the key and the range.
inline double yaml_number(const std::filesystem::path& file, const YAML::Node& node, const char* key) {
  if (!node.IsScalar()) fail_at(file, node, fmt::format("`{}` must be a number", key));
  if (node.Tag() == "!")
    fail_at(file, node, fmt::format("`{}` must be a number, got the string \"{}\" (remove the quotes)", key,
                                    node.Scalar()));
  const auto parsed = yaml_scalar_number(node.Scalar());
  if (!parsed) fail_at(file, node, fmt::format("`{}` must be a number, got '{}'", key, node.Scalar()));
  const double value = *parsed;
  const auto problem = number_range_problem(value, number_range(key));
  if (!problem.empty()) fail_at(file, node, fmt::format("`{}` {}", key, problem));
  return value;
}

// Every key of `map` must be in `allowed`; the error names the closest one.
inline void check_yaml_keys(const std::filesystem::path& file, const YAML::Node& map,
                            const std::vector<std::string>& allowed, const std::string& where) {
  for (const auto& item : map) {
    if (!item.first.IsScalar()) fail_at(file, item.first, "a key must be a plain name, not a list or a mapping");
    const auto key = item.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto hint = closest_match(key, allowed);
    fail_at(file, item.first,
            fmt::format("unknown key '{}' in {}{}; allowed: {}", key, where,
                        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), join(allowed, ", ")));
  }
}

}  // namespace kbench
