#pragma once
// The external cross-check of an isolated candidate's timing (docs/threat-model.md, "timing
// witness"). Native code can forge whatever its own process measures (samples, timer, frame);
// it cannot forge the controller's clock. After its timing, the candidate worker asks for the
// witness seeds (phase `witness-ready`); the controller sends them and starts its clock; the
// worker builds fresh input sets from them, runs the timed instance once on each and announces
// the digest of the outputs (`witness-end <sha256>`): the clock stops. The trusted reference
// worker drew the seeds and computed the expected outputs; the judge compares the committed
// outputs in full and checks them against the digest. So the outputs were computed inside the
// window, on inputs that did not exist before it, and the calls took at most the window: the
// claimed samples must allow it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kbench {

// What the controller saw on its own clock.
struct WitnessWindow {
  double wall_s = 0;   // from sending the seeds to reading `witness-end`
  std::string digest;  // announced with `witness-end`
  // Of wall_s, what other work on a loaded host took from the worker's tree (tree_schedule.hpp);
  // 0 where it cannot be told apart from the tree's own (no PID namespace: orphans leave it).
  double host_wait_s = 0;
};

// The witness's constants, per device (for_device). A forger at honest speed (its calls as fast
// as they really are, its samples shrunk) is bounded where its calls stand out of what the rule
// allows beside them: K x (call - (overhead_factor - 1) x rest) > margin_s.
struct WitnessRule {
  // An honest call may take this many times its median sample inside the window: timing noise,
  // a cold call, and on CUDA the host launch overhead that event samples leave out.
  double factor = 3;
  // The pipe and the scheduler, on a loaded machine. On CUDA 0.15 s: a window there gets no
  // credit for the host's wait (the calls run on the GPU while a thread waits for a CPU, so
  // the credit could hide them; threat-model.md), and the honest corpus on the H200 (8 jobs
  // beside nvcc builds) saw two windows of 16 small calls stretched from ~0.05 s to 0.167 s
  // (2026-12-05).
  double margin_s = 0.05;
  // The window's other work may take this many times the reference's measure of it. On the
  // CPU, 2: the work is CPU time on a host other jobs share, measured in another process. On
  // CUDA, 1.25: the window holds the GPU exclusively and its work is the steps the reference ran
  // the same way; 2 of a rest measured step by step let a 4096^2 matmul claiming 400x pass on
  // the H200 (2026-12-05: 16 calls in 62 ms against ~170 ms allowed).
  double overhead_factor = 2;
  // K where calls can be bounded: as many as make calls_s of calls, so that a forger's real
  // work stands out of the margin, within max_window_s with their rest. CUDA's larger margin
  // takes more calls: 0.4 s of them within 0.6 s.
  double calls_s = 0.15;
  double max_window_s = 0.3;

  static WitnessRule for_device(bool cuda);
  // The job's second run after an exceeded window (witness_retry.hpp): twice the calls and
  // twice the window for them. A forger's excess grows with its calls; a stall does not.
  [[nodiscard]] WitnessRule for_second_window() const;
};

// The environment variable that tells a job's workers they are its second run ("2"); set by
// the controller (witness_retry.hpp), read by the reference worker when it sizes K.
inline constexpr const char* kWitnessRunVariable = "KBENCH_WITNESS_RUN";

// How many witness calls (K), from the reference's call `call_s` and the rest of one set's work
// `overhead_s` (building its inputs, committing and opening its outputs). A forger at honest
// speed is bounded only where the call is more than the rest's share the rule allows beyond it,
// (overhead_factor - 1) x the rest (threat-model.md, "What the witness can bound"; the whole
// rest on the CPU, a quarter on CUDA): there, as many as make the rule's calls_s of calls,
// at most 256; elsewhere more calls bound nothing, and each is one more cold call an honest
// candidate must fit in the tolerance: 16. Never more than fit the rule's max_window_s with their
// overhead, and at least 2.
std::size_t witness_call_count(double call_s, double overhead_s, const WitnessRule& rule = {});

// The window, less `host_wait_s` (WitnessWindow), allows calls * factor * median(samples) +
// overhead_factor * overhead_s + margin_s, where `overhead_s` is the rest of the window's work
// (building the inputs, copying and hashing the outputs) as the reference worker measured it
// on sets like the window's. nullopt when the window is within that; otherwise the evidence, one line.
std::optional<std::string> witness_refusal(const std::vector<double>& samples_ms, int calls, double wall_s,
                                           double overhead_s, const WitnessRule& rule = {}, double host_wait_s = 0);

}  // namespace kbench
