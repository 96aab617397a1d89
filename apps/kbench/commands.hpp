#pragma once
// One function pair per subcommand: add_* declares its options, the callback runs it.
#include <CLI/CLI.hpp>

namespace kbench {
struct ProblemSelection;
}

namespace kbench::cli {

void add_run_command(CLI::App& app);
void add_worker_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_check_candidate_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_validate_command(CLI::App& app);

// --problems, --levels, --tags, --limit on `cmd` (apps/kbench/selection_options.cpp).
void add_selection_options(CLI::App* cmd, ProblemSelection& selection);
void add_slurm_command(CLI::App& app);
void add_history_command(CLI::App& app);
void add_cache_command(CLI::App& app);
void add_prompt_command(CLI::App& app);
// `kbench serve` (apps/kbench/cmd_serve.cpp); without cpp-httplib it only says so (exit 3).
void add_serve_command(CLI::App& app);

}  // namespace kbench::cli
