#pragma once
// What a blinded candidate unit fixes before anything about the expected values can enter its
// process ("commit, then reveal"; docs/threat-model.md): the outputs of every checked call, and
// for every warm-up and timed call the Merkle roots of its outputs with the leaves the
// controller chose after the roots were announced. A trusted process
// that holds the expected values judges them (judge.hpp); the candidate never sees them.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "integrity/call_audit.hpp"
#include "worker/trial.hpp"

namespace kbench {

struct CommittedTrial {
  TrialKind kind = TrialKind::seed;
  int seed = 0;
  std::vector<at::Tensor> outputs;  // flattened, on the host
};

// One warm-up or timed call: its outputs' Merkle roots and the leaves opened once its sample was
// revealed (integrity/output_opening.hpp).
using CommittedCall = SampledCall;

struct Commitment {
  std::vector<CommittedTrial> trials;  // in the order they were run
  std::vector<CommittedCall> calls;    // the judged variant's warm-up and timed calls
  // Per sample, as the candidate saw it; the judge trusts the controller's record instead
  // (exec/call_reveal.hpp) whenever there is one.
  std::vector<SampleReveal> reveals;
  // The timing witness's calls (exec/timing_witness.hpp), in order: `call.index` the call's
  // number, `call.fresh_seed` its seed, `reveal` its group (counted among the witness's reveals
  // only), `place_in_sample` its place in the group. The groups' reveals are in `reveals`, last,
  // marked `witness`; the last group's is the window's end (its digest is witness_digest's).
  std::vector<CommittedCall> witness;
};

// SHA-256 (hex) of the witness groups' digests, in order (worker/witness_groups.hpp): what the
// candidate worker announces as the window closes (`witness-end`); the judge recomputes it from
// the controller's record and the last group's calls.
std::string witness_digest(const std::vector<std::string>& group_digests);

std::string encode_commitment(const Commitment& commitment);
// Throws std::runtime_error naming what is wrong.
Commitment decode_commitment(const std::string& bytes);

}  // namespace kbench
