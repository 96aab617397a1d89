#pragma once
// Which problems of a big suite a command works on (`run` and `list`: --problems, --levels,
// --tags, --limit). Applied to the suite before planning, like --shard (run/shard.hpp).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "run/shard.hpp"
#include "suite/suite.hpp"

namespace kbench {

struct ProblemSelection {
  std::vector<std::string> problem_patterns;  // shell globs on ids (fnmatch); a problem matches any
  std::vector<int> levels;                    // a problem's level is one of them
  std::vector<std::string> tags;              // a problem has at least one of them
  std::optional<std::size_t> limit;           // the first N problems left, in suite order
  [[nodiscard]] bool empty() const {
    return problem_patterns.empty() && levels.empty() && tags.empty() && !limit;
  }
};

// Keeps, in suite order, the problems that pass every filter given; then the first `limit`;
// then those of `shard` (so `--limit 20 --shard 0/4` splits the same 20 problems four ways).
// Throws InputError when a pattern, level or tag matches no problem of the suite (a typo, named
// with the closest id or tag), or when nothing is left.
void select_problems(const ProblemSelection& selection, const std::optional<Shard>& shard,
                     std::vector<Problem>& problems);

}  // namespace kbench
