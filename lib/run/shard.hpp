#pragma once
// `kbench run --shard i/N`: run only the problems whose id hashes to shard i of N, so N machines
// can split a suite and `kbench merge` can join their results files.
#include <cstddef>
#include <string>

namespace kbench {

struct Shard {
  std::size_t index = 0;  // 0-based: 0 <= index < count
  std::size_t count = 1;
};

// Parses "i/N" (0 <= i < N). Throws InputError on anything else.
Shard parse_shard(const std::string& text);

// FNV-1a of the problem id, mod N: stable across runs and machines, and a problem's shard does
// not depend on which other problems the suite has. All candidates of a problem share its shard,
// so per-problem figures (pass@k) stay whole.
bool in_shard(const std::string& problem_id, const Shard& shard);

}  // namespace kbench
