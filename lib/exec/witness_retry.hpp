#pragma once
// Two windows before a timing witness refusal (docs/threat-model.md, "The timing witness"). A
// window the claimed samples do not allow is refused only when a second run of the whole job
// exceeds too: a fresh reference worker (fresh seeds, from its own random source), a fresh
// candidate process, a fresh judge; the verdict and every figure are then the second run's.
// A forger's calls take their real time in every window, so both exceed; an honest window
// stalled by a loaded host (the H200's honest corpus beside nvcc builds: 16 calls of 0.19 ms
// stretched to 0.32 s, 2026-12-05) seldom stalls twice. The second run takes twice the calls
// (WitnessRule::for_second_window, told by kWitnessRunVariable): a forger's excess grows with
// its calls, a stall does not; so the second chance a forger near the bound gets is a worse
// one. Nothing the first run saw helps the second: its seeds are new, and what it reports is
// judged as any run's.
#include <functional>

#include "model/job_result.hpp"

namespace kbench {

// True when `result` is a refusal of the witness's window (blinded_job.cpp marks it), not of
// the witness's outputs or its protocol: only that refusal is worth a second run.
bool witness_window_exceeded(const JobResult& result);

// `attempt(0)` and, when its window was exceeded, `attempt(1)` (the second run, in a work dir
// of its own); the second's result carries the first's window under diagnostics
// `witness_first_window` and the wall time of both.
JobResult with_second_witness_window(const std::function<JobResult(int attempt)>& attempt);

}  // namespace kbench
