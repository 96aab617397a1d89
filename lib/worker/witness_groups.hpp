#pragma once
// The candidate's side of the timing witness (exec/timing_witness.hpp), streamed: each witness
// call's outputs are copied and hashed where they are (on a GPU by the Merkle kernels). When the
// copies held would pass the budget, the group held so far is opened inside the controller's
// window: its roots go out (`reveal`, exec/call_reveal.hpp), the controller's seed says which
// leaves to open, the copies are dropped. The last group is closed by the window's end: the
// digest of every group's digest, the last one's included, goes out with `witness-end`, and the
// controller answers it with the last group's seed. So memory bounds a group, not the number of
// calls, and a witness whose outputs fit one group makes no round trip inside its window.
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "integrity/call_audit.hpp"
#include "integrity/output_opening.hpp"

namespace kbench {

// Output bytes a group may hold (with their trees): 1 GiB on a GPU, 64 MiB on the CPU.
long long witness_group_budget(bool cuda);

class WitnessGroups {
 public:
  explicit WitnessGroups(long long budget_bytes) : budget_(budget_bytes) {}

  // Witness call `index`, on `seed`: its outputs committed; the group before it opened first if
  // they would pass the budget with it. Throws std::invalid_argument for an output that cannot
  // be committed, and a `commitment` rejection when the controller does not answer a reveal.
  void add(long long index, long long seed, const std::vector<at::Tensor>& outputs);
  // Announces `witness-end` with the digest of the groups' digests (commitment.hpp's
  // witness_digest), which closes the window, and opens the last group under the seed the
  // controller answers it with. Rejections as add().
  void finish();

  // The calls with their opened leaves, and the groups' reveals (marked `witness`; the last is
  // the window's end), handed over once.
  std::vector<SampledCall> take_calls() { return std::move(calls_); }
  std::vector<SampleReveal> take_reveals() { return std::move(reveals_); }
  [[nodiscard]] std::size_t groups() const { return reveals_.size(); }

 private:
  std::string pending_digest() const;
  // Opens the held group under `reveal` (its digest and the controller's seed).
  void open_group(SampleReveal reveal);

  long long budget_;
  long long held_ = 0;
  std::vector<std::pair<SampledCall, std::vector<CommittedOutput>>> pending_;
  std::vector<SampledCall> calls_;
  std::vector<SampleReveal> reveals_;
};

}  // namespace kbench
