#pragma once
// What a suite holds, for `kbench list` (text and --json) and `kbench run --dry-run` (the
// planned jobs). Nothing is run; candidate patterns are expanded as `run` would.
#include <string>

#include <nlohmann/json.hpp>

#include "model/job.hpp"
#include "suite/suite.hpp"

namespace kbench {

// {"suite", "file", "problems": [{id, file, level, tags, sizes, candidates: {patterns, count,
// files}}], "summary": {...}}; documented in docs/cli.md#list. `total_problems` is the suite's
// size before selection.
nlohmann::json suite_listing_json(const Suite& suite, std::size_t total_problems);

// One line per problem (id, level, tags, sizes per device, candidate count) and its candidate
// files indented under it, then a summary.
std::string suite_listing_text(const Suite& suite, std::size_t total_problems);

// `run --dry-run`: one line per planned job, in plan order, and what the run would do.
std::string planned_jobs_text(const Suite& suite, const std::vector<Job>& jobs, const Device& device);

}  // namespace kbench
