#include "run/selection.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kbench {
namespace {

bool matches_id(const std::string& pattern, const std::string& id) {
  return ::fnmatch(pattern.c_str(), id.c_str(), 0) == 0;
}

bool has_tag(const Problem& p, const std::vector<std::string>& tags) {
  return std::any_of(tags.begin(), tags.end(), [&](const auto& t) {
    return std::find(p.tags.begin(), p.tags.end(), t) != p.tags.end();
  });
}

// Each filter value must select something in the whole suite: `--problems L1_19_Relu` (a typo)
// is an error, not an empty run.
void check_each_matches(const ProblemSelection& s, const std::vector<Problem>& problems) {
  std::vector<std::string> ids, all_tags;
  std::set<int> levels;
  std::set<std::string> tag_set;
  for (const auto& p : problems) {
    ids.push_back(p.id);
    levels.insert(p.level);
    tag_set.insert(p.tags.begin(), p.tags.end());
  }
  all_tags.assign(tag_set.begin(), tag_set.end());
  for (const auto& pattern : s.problem_patterns) {
    if (std::any_of(ids.begin(), ids.end(), [&](const auto& id) { return matches_id(pattern, id); }))
      continue;
    const auto hint = closest_match(pattern, ids);
    throw InputError(fmt::format("--problems '{}' matches no problem id of the suite{} (a shell "
                                 "glob on ids, e.g. 'L1_*' or '*ReLU*'; `kbench list` shows them)",
                                 pattern, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }
  for (int level : s.levels) {
    if (levels.count(level)) continue;
    std::vector<std::string> have;
    for (int l : levels) have.push_back(std::to_string(l));
    throw InputError(fmt::format("--levels: the suite has no problem at level {}; its levels: {}",
                                 level, join(have, ", ")));
  }
  for (const auto& tag : s.tags) {
    if (tag_set.count(tag)) continue;
    const auto hint = closest_match(tag, all_tags);
    throw InputError(fmt::format("--tags: no problem of the suite has tag '{}'{}; its tags: {}", tag,
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                 all_tags.empty() ? "(none)" : join(all_tags, ", ")));
  }
}

}  // namespace

void select_problems(const ProblemSelection& s, const std::optional<Shard>& shard,
                     std::vector<Problem>& problems) {
  if (s.limit && *s.limit == 0) throw InputError("--limit must be at least 1");
  check_each_matches(s, problems);
  const std::size_t total = problems.size();
  auto keep = [&](const Problem& p) {
    const bool id_ok = s.problem_patterns.empty() ||
                       std::any_of(s.problem_patterns.begin(), s.problem_patterns.end(),
                                   [&](const auto& pattern) { return matches_id(pattern, p.id); });
    const bool level_ok =
        s.levels.empty() || std::find(s.levels.begin(), s.levels.end(), p.level) != s.levels.end();
    const bool tag_ok = s.tags.empty() || has_tag(p, s.tags);
    return id_ok && level_ok && tag_ok;
  };
  problems.erase(std::remove_if(problems.begin(), problems.end(), [&](const auto& p) { return !keep(p); }),
                 problems.end());
  if (problems.empty())
    throw InputError(fmt::format("the selection keeps none of the suite's {} problems (each filter "
                                 "matches some, but no problem passes all of them)",
                                 total));
  if (s.limit && problems.size() > *s.limit) problems.resize(*s.limit);
  if (shard) {
    problems.erase(std::remove_if(problems.begin(), problems.end(),
                                  [&](const auto& p) { return !in_shard(p.id, *shard); }),
                   problems.end());
  }
}

}  // namespace kbench
