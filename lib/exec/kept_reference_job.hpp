#pragma once
// One job with kept reference work (model/kept_reference.hpp, cache/kept_reference_store.hpp;
// docs/timing.md#kept-reference-work):
//   1. the key's record, or a trusted worker (`--reference-baselines`: no candidate code in its
//      process) that measures it with the full protocol and whose compile caches are published;
//   2. the job's workers with `--short-baselines`: the candidate timed to its precision beside a
//      few rounds of one baseline, with a copy of the record's compile artefacts in its job dir;
//   3. the controller's drift check of that short sample against the record
//      (measure/baseline_drift.hpp): within the bound, the result's baselines are the record's;
//      beyond it, the record is measured again and the job runs again with the full protocol.
// Candidate timings are never kept; what a candidate's process reports about baselines decides
// only between the kept figures and a full re-run, never the figures themselves.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cache/kept_reference_store.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"

namespace kbench {

// One run of the job's workers in `dir` with `worker_args` added to each worker's command line;
// `held`: the slot's pre-started hold applies (the job's first process only).
using JobAttempt =
    std::function<JobResult(const std::filesystem::path& dir, const std::vector<std::string>& worker_args, bool held)>;

// The job's result when the candidate's source alone decides it (a worker that stops after its
// source checks, in `dir`: no torch, no baseline), else nullopt.
using SourceCheck = std::function<std::optional<JobResult>(const std::filesystem::path& dir)>;

// `job.device` is the slot's. A job the store is not for (KeptReferenceStore::off_reason) runs as
// without one; every other result gets `kept_reference` (why not, when it was not kept). When
// the key has no record yet, `source_check` (if given) runs first: a candidate its source
// refuses is that result, and the record is left to the next job of the key.
// `wait_turn`: a pre-started job's hold (run_job_held), empty for a job its slot runs now. A job
// claimed ahead measures no record before its slot releases it (else it ran a trusted worker
// beside the slot's job, outside the slot count and the memory grant, and took the key from the
// job before it): when its key has no record it waits for its turn, the key's lock released, then
// looks again. Called at most once; its attempts are then not held; false: cancelled (throws
// Interrupted).
JobResult run_with_kept_reference(const Job& job, const std::filesystem::path& job_dir, KeptReferenceStore& store,
                                  const JobAttempt& attempt, const SourceCheck& source_check = {},
                                  const std::function<bool()>& wait_turn = {});

// A reference fill (`kbench serve` at start, exec/job_queue.hpp): `job`'s key's record measured
// now, by the same trusted worker and under the same key lock as step 1 above, so a job of the
// key that comes meanwhile waits for this record instead of measuring a second one, and finds
// exactly the record it would have made. No candidate: the job's candidate file is never read.
// The result: `ok` with `kept_reference` (refreshed: measured now; else the record was there
// already), or `problem_error` whose message names the trusted worker's failure. Throws nothing
// but the controller's Interrupted: a failing reference is a result, not the service's end.
JobResult fill_kept_reference(const Job& job, KeptReferenceStore& store, const JobAttempt& attempt);

}  // namespace kbench
