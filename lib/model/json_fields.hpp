#pragma once
// The reading rules of the model codec (codec.hpp), for every boundary alike: a required field
// missing, a value of the wrong type, a number outside its documented range
// (suite/number_range) all throw CodecError naming the JSON path ("results[2].timings.eager.
// samples_ms[3]: ..."). A field with a default may be absent; present, it is checked the same.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

// Bad data at a boundary. Callers add the source (file, frame) and pick the exit code.
struct CodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One JSON object being read, named by its path for the error messages. It refers to the
// object, which must outlive it.
class JsonFields {
 public:
  // Throws CodecError when `object` is not a JSON object.
  JsonFields(const nlohmann::json& object, std::string path);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string path(std::string_view key) const;
  // Present and not null.
  [[nodiscard]] bool has(const char* key) const;
  // The raw value; throws when missing.
  [[nodiscard]] const nlohmann::json& at(const char* key) const;

  [[nodiscard]] std::string text(const char* key) const;
  [[nodiscard]] std::string text_or(const char* key, const std::string& fallback) const;
  [[nodiscard]] bool flag(const char* key) const;
  [[nodiscard]] bool flag_or(const char* key, bool fallback) const;
  // `range`: a name in suite/number_range's table; empty: any finite number.
  [[nodiscard]] double number(const char* key, std::string_view range = {}) const;
  [[nodiscard]] std::optional<double> optional_number(const char* key, std::string_view range = {}) const;
  [[nodiscard]] int integer(const char* key, std::string_view range) const;
  [[nodiscard]] int integer_or(const char* key, std::string_view range, int fallback) const;
  [[nodiscard]] std::size_t count(const char* key) const;  // a non-negative integer
  [[nodiscard]] std::vector<std::string> texts(const char* key) const;
  [[nodiscard]] std::vector<std::string> texts_or(const char* key, std::vector<std::string> fallback) const;
  [[nodiscard]] std::vector<double> numbers(const char* key, std::string_view range) const;
  [[nodiscard]] std::vector<int> integers_or(const char* key, std::string_view range,
                                             std::vector<int> fallback) const;
  // A nested object, kept as JSON (diagnostics, protocol, environment). Absent: the fallback.
  [[nodiscard]] nlohmann::json object(const char* key) const;
  [[nodiscard]] nlohmann::json object_or(const char* key, nlohmann::json fallback) const;
  // A nested object to read field by field.
  [[nodiscard]] JsonFields fields(const char* key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

 private:
  const nlohmann::json& object_;
  std::string path_;
};

}  // namespace kbench
