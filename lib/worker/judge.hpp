#pragma once
// The trusted side of a blinded evaluation ("commit, then reveal"; docs/threat-model.md): the
// candidate unit ran against blinded reference work (no expected values in its process) and
// committed its outputs; here, in a process that never loads candidate code (nor torch's Python side), they
// are compared with the full reference work. Only this comparison decides correctness: what the
// candidate's process reported about it is provisional and can only lose here.
#include <vector>

#include "exec/call_reveal.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"
#include "worker/commitment.hpp"
#include "worker/reference_work.hpp"

namespace kbench {

// `provisional`: the candidate unit's result (apply_worker_message of its frame). A failure of
// its own stands; otherwise every trial of `work` must have committed outputs that match, and
// every committed call's sampled values must match its timing set's expected output. With
// witness sets in `work`, the committed witness outputs must be those whose digest
// `witness_sha256` the controller read as the window closed, and match in full. `reveals`: the
// controller's record of the seeds it sent for the sampled calls (exec/call_reveal.hpp), which
// then decides which leaves must be opened; nullptr (a worker run without a controller): the
// commitment's own record.
JobResult judge_commitment(const Job& job, const ReferenceWork& work, const Commitment& commitment,
                           JobResult provisional, const std::string& witness_sha256 = "",
                           const std::vector<CallReveal>* reveals = nullptr);

}  // namespace kbench
