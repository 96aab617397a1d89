// --problems, --levels, --tags, --limit: the same selection options on `run` and `list`.
#include "commands.hpp"
#include "run/selection.hpp"

namespace kbench::cli {

void add_selection_options(CLI::App* cmd, ProblemSelection& selection) {
  cmd->add_option("--problems", selection.problem_patterns,
                  "Only problems whose id matches this shell glob (e.g. 'L1_*', '*ReLU*'); repeatable")
      ->type_name("PATTERN")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Selection");
  cmd->add_option("--levels", selection.levels, "Only problems of these levels (comma-separated)")
      ->type_name("N,N,...")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::PositiveNumber)
      ->group("Selection");
  cmd->add_option("--tags", selection.tags, "Only problems with at least one of these tags (comma-separated)")
      ->type_name("TAG,TAG,...")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Selection");
  cmd->add_option("--limit", selection.limit,
                  "Only the first N problems left by the filters above (in suite order)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->group("Selection");
}

}  // namespace kbench::cli
