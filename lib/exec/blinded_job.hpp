#pragma once
// One job in three processes, for candidates that may run native code (docs/threat-model.md,
// "commit, then reveal"): a reference worker (trusted: never loads the candidate) computes the
// reference work; the candidate worker gets it *blinded* (no expected value) and commits its
// outputs; a judge worker (no Python, no candidate code) compares them with the full work and
// gives the verdict. The full work never exists on disk while candidate code runs: the
// controller holds it in memory from the reference worker's end to the judge's start.
#include <filesystem>
#include <functional>

#include "model/job.hpp"
#include "model/job_result.hpp"
#include "exec/worker_process.hpp"

namespace kbench {

// KBENCH_NATIVE_ISOLATION=blinded in kbench's environment: native-capable candidates run
// blinded (below). Off by default until the e2e suites and the H200 stage have run it.
bool blinded_isolation_enabled();

// True when the candidate's source names a way to run machine code or to reach the worker's
// memory below Python: load_inline / cpp_extension, ctypes, cffi, torch.ops.load_library,
// /proc/self/mem. A plain text search (comments and strings count): it errs on the safe side.
bool may_run_native_code(const std::filesystem::path& candidate_file);

// `launch_in(dir)`: a worker launch for the job with `dir` as its work dir (limits, sandbox,
// environment as every job's). `candidate_outcome` gets the candidate worker's outcome (its
// extension builds are published from it).
JobResult run_blinded_job(const Job& job, const std::filesystem::path& job_dir,
                          const std::function<WorkerLaunch(const std::filesystem::path&)>& launch_in,
                          WorkerOutcome& candidate_outcome);

}  // namespace kbench
