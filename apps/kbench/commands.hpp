#pragma once
// One function pair per subcommand: add_* declares its options, the callback runs it.
#include <CLI/CLI.hpp>

namespace kbench::cli {

void add_run_command(CLI::App& app);
void add_worker_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_slurm_command(CLI::App& app);
void add_history_command(CLI::App& app);
void add_cache_command(CLI::App& app);

}  // namespace kbench::cli
