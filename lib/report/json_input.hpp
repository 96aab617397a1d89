#pragma once
// Reading JSON kbench did not write itself (results files given to compare and merge): nesting
// is bounded (a 100,000-deep object would overflow the stack in later recursive code) and every
// error names the file and the JSON path of the bad value, e.g. `results[3].wall_s`.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kbench {

// Deeper than any file kbench writes (about 8) by far.
inline constexpr int kMaxJsonDepth = 64;

// Throws InputError("FILE: PATH: what is wrong") for unreadable, invalid, too deeply nested
// JSON or a number that does not fit a double.
nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what = "JSON file");
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

}  // namespace kbench
