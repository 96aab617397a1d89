#pragma once
// The model-endpoint options of `kbench run` (docs/cli.md, docs/endpoints.md), kept apart from
// cmd_run.cpp: the flags, and the generator this binary was built with (none without lib/generate).
#include <CLI/CLI.hpp>

#include "run/suite_runner.hpp"

namespace kbench::cli {

void add_generate_options(CLI::App& run, SuiteRunOptions& options);
// Sets options.generator when this binary has lib/generate.
void attach_generator(SuiteRunOptions& options);

}  // namespace kbench::cli
