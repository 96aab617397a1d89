#pragma once
// Planning, the run stage's first step: a suite's problems x their candidate files (or the
// candidates a model wrote) -> Jobs for one device. `kbench run`, `list`, `validate`, the agent
// loop and the Evaluator (and so `kbench serve` and the Python module) all plan here.
#include <filesystem>
#include <vector>

#include "device/device.hpp"
#include "model/candidate_origin.hpp"
#include "model/job.hpp"
#include "suite/suite.hpp"

namespace kbench {

// The problem's part of every Job of it on `device` (id, file, level, tags, settings, the sizes
// and alt sizes of the device's kind), no candidate yet: planning adds one, `kbench validate`
// checks the problem alone with it.
Job problem_job(const Problem& problem, const Device& device);

// The candidate files of one problem: its patterns expanded ({id} -> problem id; relative to the
// suite file's folder), regular files only, sorted, each once. Empty when nothing matches.
std::vector<std::filesystem::path> candidate_files(const Suite& suite, const Problem& problem);

// The job of `problem` x candidate `file` on `device`: the problem's settings, its size overrides
// for the device's kind, timing resolved for that kind.
Job make_job(const Problem& problem, const std::filesystem::path& file, const Device& device);

// Expands each problem's candidate patterns ({id} -> problem id; paths relative to the suite
// file) into jobs, in suite order. Throws InputError when a problem matches no candidate file.
std::vector<Job> plan_jobs(const Suite& suite, const Device& device);

// Jobs for candidates a model wrote, in the given order (problem, then sample). A candidate
// without code gets a Job whose candidate_file is its reply; it is not run (status no_code).
std::vector<Job> plan_generated_jobs(const Suite& suite, const Device& device,
                                     const std::vector<GeneratedCandidate>& candidates);

}  // namespace kbench
