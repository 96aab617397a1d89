#pragma once
// What both executables do around their CLI11 app: parse, run, and print an error once with
// its documented exit code (docs/cli.md). kbench (apps/kbench/main.cpp) and kbench-worker
// (worker_main.cpp) share it, so a worker-side error reads and exits like any other.
#include <CLI/CLI.hpp>

#include <functional>

namespace kbench::cli {

// The footer of `--help`: every exit code, once.
extern const char* const kExitCodesFooter;

// `before_parse` runs first, under the same error handling (e.g. the unknown-subcommand check).
int run_cli(CLI::App& app, int argc, char** argv, const std::function<void()>& before_parse = {});

}  // namespace kbench::cli
