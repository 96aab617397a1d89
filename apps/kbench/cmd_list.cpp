// `kbench list SUITE.yaml [--json]`: the problems of a suite, their levels, tags, sizes per
// device and the candidate files their patterns match. Nothing is run.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "run/selection.hpp"
#include "run/suite_listing.hpp"
#include "suite/suite.hpp"

namespace kbench::cli {

void add_list_command(CLI::App& app) {
  auto suite_file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto selection = std::make_shared<ProblemSelection>();
  auto* cmd = app.add_subcommand("list", "Show a suite's problems, levels, tags, sizes and "
                                         "matched candidate files (nothing is run)");
  cmd->add_option("suite", *suite_file, "Suite YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--json", *json, "One JSON document on stdout instead of the table");
  add_selection_options(cmd, *selection);
  cmd->callback([suite_file, json, selection] {
    Suite suite = load_suite(*suite_file);
    const std::size_t total = suite.problems.size();
    select_problems(*selection, std::nullopt, suite.problems);
    const std::string text = *json ? suite_listing_json(suite, total).dump(2) + "\n"
                                   : suite_listing_text(suite, total);
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace kbench::cli
