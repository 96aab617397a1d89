#pragma once
// Small string helpers shared by the suite loader and the reporters.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

// Levenshtein distance; used for "did you mean" hints on unknown keys and ids.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is plausibly a typo of it.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// The last `max_bytes` bytes of `text`, prefixed by a note when something was cut.
std::string tail_of(const std::string& text, std::size_t max_bytes);

// 64-bit FNV-1a: a stable hash (shards, journal plan fingerprints), not a cryptographic one.
std::uint64_t fnv1a(std::string_view text);

std::string join(const std::vector<std::string>& parts, std::string_view separator);

// "6.40 GiB" or "512.0 MiB": memory sizes in messages and tables.
std::string bytes_text(double bytes);

}  // namespace kbench

namespace kbench {

// `text` safe to print on a terminal: control bytes (but newline and tab) and bytes that are
// not valid UTF-8 become `\xNN`, so a garbage byte in a suite never reaches the terminal raw.
std::string printable(std::string_view text);

}  // namespace kbench
