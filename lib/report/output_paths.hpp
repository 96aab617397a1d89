#pragma once
// The output-path guard: before any work, every file a command will write is checked against
// every file it reads and against the other outputs, by file identity (std::filesystem::
// equivalent for files that exist, canonical paths for those that do not), so `--md problem.py`,
// `-o suite.yaml`, `merge a.json -o a.json` or `--md x --csv x` never destroy anything.
#include <filesystem>
#include <string>
#include <vector>

namespace kbench {

struct NamedPath {
  std::string role;  // how the user named it: "-o", "--md", "the suite", "candidate file"
  std::filesystem::path path;
};

// Throws InputError naming both paths when an output is a directory (or ends in '/'), is one of
// `inputs`, or is another output. "-" (stdout) outputs are skipped.
void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// A `--work-dir`: an existing directory, or one that can be created (its nearest existing
// ancestor is a writable directory). Throws InputError otherwise; creates nothing.
void check_work_dir(const std::filesystem::path& dir);

}  // namespace kbench
