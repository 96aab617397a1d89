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
};

// The window, less `host_wait_s` (WitnessWindow), allows calls * factor * median(samples) +
// 2 * overhead_s + margin_s, where `overhead_s` is the rest of the window's work (building the
// inputs, copying and hashing the outputs) as the reference worker measured it on the same
// inputs. nullopt when the window is within that; otherwise the evidence, one line.
std::optional<std::string> witness_refusal(const std::vector<double>& samples_ms, int calls, double wall_s,
                                           double overhead_s, const WitnessRule& rule = {}, double host_wait_s = 0);

}  // namespace kbench
