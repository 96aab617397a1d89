#pragma once
// One job in three processes, for candidates that may run native code (docs/threat-model.md,
// "commit, then reveal"): a reference worker (trusted: never loads the candidate) computes the
// reference work; the candidate worker gets it *blinded* (no expected value) and commits its
// outputs; a judge worker (no Python, no candidate code) compares them with the full work and
// gives the verdict. The full work never exists on disk while candidate code runs: the
// controller holds it in memory from the reference worker's end to the judge's start.
#include <filesystem>
#include <functional>
#include <optional>

#include "model/job.hpp"
#include "model/job_result.hpp"
#include "exec/worker_process.hpp"

namespace kbench {

// On unless KBENCH_NATIVE_ISOLATION=off is in kbench's environment (for debugging a native
// candidate in one process; docs/cli.md): native-capable candidates run blinded (below).
bool native_isolation_enabled();

// KBENCH_NATIVE_ISOLATION=all: every candidate is placed apart, not only those the static
// analysis finds able to reach native code or raw memory. The static analysis cannot prove a
// Python candidate harmless (numpy is loaded in every worker: docs/threat-model.md#raw-memory-
// from-pure-python); this closes the rest at the cost of three processes a job. The controller
// passes the word on to the job's workers, which decide the placement.
inline constexpr const char* kNativeIsolationVariable = "KBENCH_NATIVE_ISOLATION";
bool every_candidate_placed_apart();

// Lets the job's first worker decide: the worker runs the static analysis before any candidate
// code (native_code_reason, lib/integrity/static_analysis.hpp, the one detector of native
// code) and, for a candidate that may run native code, becomes the reference worker below.
void allow_native_placement(WorkerLaunch& first, const std::filesystem::path& job_dir);

// `referenced`: the job's first worker. When it placed the candidate apart (its frame carries
// the reference work), the candidate worker and the judge run next and this returns the verdict;
// otherwise nullopt (`referenced` is the job's one worker). `launch_in(dir)`: a worker launch
// for the job with `dir` as its work dir (limits, sandbox, environment as every job's).
// `candidate_outcome` gets the candidate worker's outcome (its extension builds are published
// from it).
std::optional<JobResult> finish_placed_apart(
    const Job& job, const std::filesystem::path& job_dir, const WorkerOutcome& referenced,
    const std::function<WorkerLaunch(const std::filesystem::path&)>& launch_in, WorkerOutcome& candidate_outcome);

}  // namespace kbench
