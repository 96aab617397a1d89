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

struct WitnessRule {
  // An honest call may take this many times its median sample inside the window: timing noise,
  // a cold call, and on CUDA the host launch overhead that event samples leave out.
  double factor = 3;
  // The pipe and the scheduler, on a loaded machine.
  double margin_s = 0.05;
  // The window's other work may take this many times the reference's measure of it. What a
  // forger at honest speed hides its calls in: a forger is bounded only where its calls take
  // more than (overhead_factor - 1) x that work plus the margin. On the CPU, 2: the work is CPU
  // time on a host other jobs share, measured in another process. On CUDA, 1.25 (for_device):
  // the window holds the GPU exclusively and its work is the same steps the reference measured,
  // each synchronised there and pipelined here; 2 let a 4096^2 matmul claiming 400x pass on the
  // H200 (2026-12-05: 16 calls in 62 ms against ~170 ms allowed).
  double overhead_factor = 2;

  static WitnessRule for_device(bool cuda);
};

// How many witness calls (K), from the reference's call `call_s` and the rest of one set's work
// `overhead_s` (building its inputs, committing and opening its outputs). A forger at honest
// speed is bounded only where the call is not small beside the rest (threat-model.md, "What the
// witness can bound"; more than half of it): there, as many as make 0.15 s of calls, so that
// its real work stands out of the fixed margin, at most 256; elsewhere more calls bound nothing,
// and each is one more cold call an honest candidate must fit in the tolerance: 16. Never more
// than fit 0.3 s with their overhead, and at least 2.
std::size_t witness_call_count(double call_s, double overhead_s);

// The window, less `host_wait_s` (WitnessWindow), allows calls * factor * median(samples) +
// overhead_factor * overhead_s + margin_s, where `overhead_s` is the rest of the window's work
// (building the inputs, copying and hashing the outputs) as the reference worker measured it
// on sets like the window's. nullopt when the window is within that; otherwise the evidence, one line.
std::optional<std::string> witness_refusal(const std::vector<double>& samples_ms, int calls, double wall_s,
                                           double overhead_s, const WitnessRule& rule = {}, double host_wait_s = 0);

}  // namespace kbench
