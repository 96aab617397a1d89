#pragma once
// The trusted side of a blinded evaluation ("commit, then reveal"; docs/threat-model.md): the
// candidate unit ran against blinded reference work (no expected values in its process) and
// committed its outputs; here, in a process that never loads candidate code, they are compared
// with the full reference work. torch is imported only where the calls had fresh values
// (ReferenceWork::fresh_calls): their expected outputs are computed here, from the controller's
// seeds, once the candidate's process tree is gone. Only this comparison decides correctness: what the
// candidate's process reported about it is provisional and can only lose here.
#include <ATen/core/Tensor.h>

#include <functional>
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
// witness seeds in `work`, the witness calls must have been committed in groups, each announced
// by a reveal inside the controller's window, whose digests make `witness_sha256` (read as the
// window closed), and their opened leaves must match `witness_expected(seed)`, the reference's
// outputs on the inputs of the call's seed (computed in this process). `reveals`: the
// controller's record of the seeds it sent for the sampled calls (exec/call_reveal.hpp), which
// then decides which leaves must be opened; nullptr (a worker run without a controller): the
// commitment's own record. With `work.fresh_calls`, reveal 0 is the opening one
// (fresh_start_digest(), no calls), every call names the earlier reveal and the buffer its values
// were drawn under (each pair once), and `fresh_expected(seed)` gives the reference's outputs
// (flattened) on the inputs of that seed (worker/fresh_inputs.hpp, in this process).
using FreshExpected = std::function<std::vector<at::Tensor>(long long seed)>;
JobResult judge_commitment(const Job& job, const ReferenceWork& work, const Commitment& commitment,
                           JobResult provisional, const std::string& witness_sha256 = "",
                           const std::vector<CallReveal>* reveals = nullptr, const FreshExpected& fresh_expected = {},
                           const FreshExpected& witness_expected = {});

}  // namespace kbench
