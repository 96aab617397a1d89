#pragma once
// Commit, then reveal, for one sampled call of an isolated candidate (docs/threat-model.md,
// "sampled values of timed calls"). Its outputs are copied to the host and committed as Merkle
// roots (core/merkle_tree.hpp); the digest of a sample's roots leaves the process
// (`reveal <digest>`, exec/call_reveal.hpp) before the controller's seed says which leaves of
// each output are opened. So native code that knows which elements are looked at learns it only
// after the whole of every output is fixed: computing only the checked elements no longer pays.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/merkle_tree.hpp"
#include "integrity/tensor_merkle.hpp"
#include "model/tolerance.hpp"

namespace kbench {

// One output, committed: its dtype, shape and root; once opened, the leaves at the revealed
// positions with their proofs.
struct OpenedOutput {
  std::string dtype;           // c10::toString of the output's scalar type
  std::vector<int64_t> sizes;
  Sha256Digest root{};
  at::Tensor positions;        // int64 leaf positions (the reveal's, in its order)
  at::Tensor leaves;           // uint8: the opened leaves' bytes, one after another
  at::Tensor proofs;           // uint8 [positions, depth, 32]
};

// An output hashed, kept (its tree holds this process's own copy) until its sample is revealed.
struct CommittedOutput {
  TensorMerkleTree tree;
  OpenedOutput opened;  // dtype, sizes and root filled in
};
// Copied to the host and hashed there: a sampled call's, outside the timed interval.
CommittedOutput commit_output(const at::Tensor& output);
// Copied and hashed where it is (on a GPU by the Merkle kernels): a timing witness call's, inside
// the controller's window, where a host copy of the whole would cost more than the calls.
CommittedOutput commit_output_in_place(const at::Tensor& output);

// The leaves opened for output `output` of call `call_in_sample` (the call's place in its
// sample) under the reveal `seed`: every leaf of an output of at most `count` leaves, else
// `count` uniform draws.
std::vector<std::size_t> opening_positions(std::uint64_t seed, std::size_t call_in_sample, std::size_t output,
                                           std::size_t leaves, std::size_t count);
void open_output(CommittedOutput& committed, const std::vector<std::size_t>& positions);

// The line of one call's outputs that goes into its sample's digest; `fresh_reveal` >= 0: the
// reveal whose seed its fresh values came from (exec/call_reveal.hpp), bound with the roots.
std::string commitment_line(long long call_index, int value_set, bool warmup, const std::vector<OpenedOutput>& outputs,
                            int fresh_reveal = -1);
// The line of one timing witness call (exec/timing_witness.hpp): its number and seed, then its
// outputs as in commitment_line; a leading "w" keeps it apart from any call's line.
std::string witness_call_line(long long call_index, long long seed, const std::vector<OpenedOutput>& outputs);
// SHA-256 (hex) of a sample's lines, in order: what `reveal` announces.
std::string sample_digest(const std::vector<std::string>& lines);

// The judge's side: the opened leaves of `opened` checked against its root and `positions`,
// then their elements compared with `expected` (on any device: only the opened elements are
// gathered there and copied to the host, not the whole output per call). nullopt when they match;
// otherwise what is wrong, and `commitment_broken` says whether the opening itself is (not the
// values).
struct OpeningFault {
  std::string what;
  bool commitment_broken = false;
  int64_t elements_checked = 0;
};
std::optional<OpeningFault> check_opening(const OpenedOutput& opened, const std::vector<std::size_t>& positions,
                                          const at::Tensor& expected, const Tolerance& tolerance,
                                          int64_t* elements_checked = nullptr);

}  // namespace kbench
