#pragma once
// Shell completion scripts written from the CLI's own definition (the CLI11 tree), so they never
// drift from the options `--help` shows: `kbench completion bash|zsh` prints one.
#include <string>

#include <CLI/CLI.hpp>

namespace kbench::cli {

// The script for `shell` ("bash" or "zsh") completing every visible subcommand (at any depth),
// its flags and options; positional arguments and option values complete as file names.
std::string completion_script(const CLI::App& root, const std::string& shell);

void add_completion_command(CLI::App& app);

}  // namespace kbench::cli
