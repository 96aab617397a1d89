#include "model/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "suite/number_range.hpp"

namespace kbench {
namespace {

std::string join_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

const char* expected_name(nlohmann::json::value_t type) {
  switch (type) {
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "true or false";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::object: return "an object";
    default: return "a number";
  }
}

[[noreturn]] void wrong_type(const std::string& path, nlohmann::json::value_t expected,
                             const nlohmann::json& value) {
  throw CodecError(fmt::format("{}: unexpected type {}, expected {}", path, value.type_name(),
                               expected_name(expected)));
}

double checked_number(const nlohmann::json& value, const std::string& path, std::string_view range) {
  if (!value.is_number()) wrong_type(path, nlohmann::json::value_t::number_float, value);
  const double x = value.get<double>();
  if (!range.empty()) {
    const auto problem = number_range_problem(x, number_range(range));
    if (!problem.empty()) throw CodecError(fmt::format("{}: {}", path, problem));
  } else if (!std::isfinite(x)) {
    throw CodecError(fmt::format("{}: must be a finite number, got {}", path, x));
  }
  return x;
}

int checked_integer(const nlohmann::json& value, const std::string& path, std::string_view range) {
  const double x = checked_number(value, path, range);
  if (!value.is_number_integer() || x < std::numeric_limits<int>::min() ||
      x > std::numeric_limits<int>::max())
    throw CodecError(fmt::format("{}: expected an integer, got {}", path, value.dump()));
  return int(x);
}

}  // namespace

JsonFields::JsonFields(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object())
    throw CodecError(fmt::format("{}: unexpected type {}, expected an object",
                                 path_.empty() ? "file" : path_, object_.type_name()));
}

std::string JsonFields::path(std::string_view key) const { return join_path(path_, key); }

void JsonFields::fail(std::string_view key, const std::string& what) const {
  throw CodecError(fmt::format("{}: {}", path(key), what));
}

bool JsonFields::has(const char* key) const {
  const auto it = object_.find(key);
  return it != object_.end() && !it->is_null();
}

const nlohmann::json& JsonFields::at(const char* key) const {
  const auto it = object_.find(key);
  if (it == object_.end())
    throw CodecError(fmt::format("{}: missing '{}'", path_.empty() ? "file" : path_, key));
  return *it;
}

std::string JsonFields::text(const char* key) const {
  const auto& value = at(key);
  if (!value.is_string()) wrong_type(path(key), nlohmann::json::value_t::string, value);
  return value.get<std::string>();
}

std::string JsonFields::text_or(const char* key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

bool JsonFields::flag(const char* key) const {
  const auto& value = at(key);
  if (!value.is_boolean()) wrong_type(path(key), nlohmann::json::value_t::boolean, value);
  return value.get<bool>();
}

bool JsonFields::flag_or(const char* key, bool fallback) const { return has(key) ? flag(key) : fallback; }

double JsonFields::number(const char* key, std::string_view range) const {
  return checked_number(at(key), path(key), range);
}

std::optional<double> JsonFields::optional_number(const char* key, std::string_view range) const {
  if (!has(key)) return std::nullopt;
  return number(key, range);
}

int JsonFields::integer(const char* key, std::string_view range) const {
  return checked_integer(at(key), path(key), range);
}

int JsonFields::integer_or(const char* key, std::string_view range, int fallback) const {
  return has(key) ? integer(key, range) : fallback;
}

std::size_t JsonFields::count(const char* key) const {
  const auto& value = at(key);
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<long long>() >= 0))
    throw CodecError(fmt::format("{}: expected a non-negative integer, got {}", path(key), value.dump()));
  return value.get<std::size_t>();
}

std::vector<std::string> JsonFields::texts(const char* key) const {
  const auto& value = at(key);
  if (!value.is_array()) wrong_type(path(key), nlohmann::json::value_t::array, value);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string())
      wrong_type(fmt::format("{}[{}]", path(key), i), nlohmann::json::value_t::string, value[i]);
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

std::vector<std::string> JsonFields::texts_or(const char* key, std::vector<std::string> fallback) const {
  return has(key) ? texts(key) : fallback;
}

std::vector<double> JsonFields::numbers(const char* key, std::string_view range) const {
  const auto& value = at(key);
  if (!value.is_array()) wrong_type(path(key), nlohmann::json::value_t::array, value);
  std::vector<double> out;
  for (std::size_t i = 0; i < value.size(); ++i)
    out.push_back(checked_number(value[i], fmt::format("{}[{}]", path(key), i), range));
  return out;
}

std::vector<int> JsonFields::integers_or(const char* key, std::string_view range,
                                         std::vector<int> fallback) const {
  if (!has(key)) return fallback;
  const auto& value = at(key);
  if (!value.is_array()) wrong_type(path(key), nlohmann::json::value_t::array, value);
  std::vector<int> out;
  for (std::size_t i = 0; i < value.size(); ++i)
    out.push_back(checked_integer(value[i], fmt::format("{}[{}]", path(key), i), range));
  return out;
}

nlohmann::json JsonFields::object(const char* key) const {
  const auto& value = at(key);
  if (!value.is_object()) wrong_type(path(key), nlohmann::json::value_t::object, value);
  return value;
}

nlohmann::json JsonFields::object_or(const char* key, nlohmann::json fallback) const {
  return has(key) ? object(key) : std::move(fallback);
}

JsonFields JsonFields::fields(const char* key) const {
  const auto& value = at(key);  // a reference into the document: the result refers to it
  if (!value.is_object()) wrong_type(path(key), nlohmann::json::value_t::object, value);
  return JsonFields(value, path(key));
}

}  // namespace kbench
