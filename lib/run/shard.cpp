#include "run/shard.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kbench {
namespace {

bool parse_count(const std::string& text, std::size_t& out) {
  if (text.empty() || text.size() > 9) return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + std::size_t(c - '0');
  }
  return true;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), shard.index) ||
      !parse_count(text.substr(slash + 1), shard.count) || shard.count == 0 ||
      shard.index >= shard.count)
    throw InputError(fmt::format("--shard '{}': expected i/N with 0 <= i < N (e.g. 0/4 ... 3/4)", text));
  return shard;
}

bool in_shard(const std::string& problem_id, const Shard& shard) {
  return fnv1a(problem_id) % shard.count == shard.index;
}

}  // namespace kbench
