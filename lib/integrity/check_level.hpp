#pragma once
// How strict the integrity checks are (`--checks`, suite `checks:`); docs/integrity.md lists
// which check runs at which level and what each costs.
#include <optional>
#include <string>
#include <vector>

namespace kbench {

// Each level includes everything of the levels below it.
enum class CheckLevel {
  minimal,   // outputs compared on the seeds; nothing else
  standard,  // + second input distribution and shape, trust boundary, threads, monkeypatching
  strict,    // + call tracing (reference calls, kernel launches), static policy, kernel share
};

std::string to_string(CheckLevel level);
std::optional<CheckLevel> check_level_from_string(const std::string& text);
const std::vector<std::string>& check_level_names();

// One integrity check: its name (as in results' `diagnostics.integrity.check`) and the lowest
// level that runs it.
struct IntegrityCheck {
  const char* name;
  CheckLevel level;
  const char* what;  // one line, for docs and error messages
};
const std::vector<IntegrityCheck>& integrity_checks();

// True when `check` (a name from integrity_checks()) runs at `level`; unknown names throw
// std::logic_error, so a typo in the worker cannot silently disable a check.
bool check_enabled(CheckLevel level, const std::string& check);

}  // namespace kbench
