#include "integrity/output_opening.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "correctness/output_comparison.hpp"
#include "integrity/tensor_merkle.hpp"

namespace kbench {
namespace {

// ":dtype:sizes:root" per output, and the line's end.
std::string roots_text(const std::vector<OpenedOutput>& outputs) {
  std::string text;
  for (const auto& o : outputs) text += fmt::format(":{}:{}:{}", o.dtype, fmt::join(o.sizes, "x"), to_hex(o.root));
  return text + "\n";
}

CommittedOutput commit_copy(const at::Tensor& copy) {
  OpenedOutput opened;
  opened.dtype = c10::toString(copy.scalar_type());
  opened.sizes = copy.sizes().vec();
  TensorMerkleTree tree(copy);
  opened.root = tree.root();
  return {std::move(tree), std::move(opened)};
}

}  // namespace

CommittedOutput commit_output(const at::Tensor& output) {
  const at::Tensor t = output.detach();
  // Our own copy: the output is poisoned right after its check, and a CPU output's contiguous()
  // may be the output itself.
  return commit_copy(t.is_cpu() ? t.contiguous().clone() : t.to(at::kCPU).contiguous());
}

CommittedOutput commit_output_in_place(const at::Tensor& output) {
  // Our own copy where the output is: the candidate may write the same buffer on its next call.
  return commit_copy(output.detach().clone(at::MemoryFormat::Contiguous));
}

std::vector<std::size_t> opening_positions(std::uint64_t seed, std::size_t call_in_sample, std::size_t output,
                                           std::size_t leaves, std::size_t count) {
  if (leaves <= count) {
    std::vector<std::size_t> all(leaves);
    for (std::size_t i = 0; i < leaves; ++i) all[i] = i;
    return all;
  }
  // One stream per (call, output) of the sample, all from the controller's one seed.
  const std::uint64_t stream = seed ^ (0x9E3779B97F4A7C15ull * (std::uint64_t(call_in_sample) * 4096 + output + 1));
  return merkle_reveal_positions(stream, leaves, count);
}

void open_output(CommittedOutput& committed, const std::vector<std::size_t>& positions) {
  std::vector<int64_t> where(positions.begin(), positions.end());
  committed.tree.open(positions, committed.opened.leaves, committed.opened.proofs);
  committed.opened.positions = at::tensor(where, at::kLong);
}

std::string commitment_line(long long call_index, int value_set, bool warmup, const std::vector<OpenedOutput>& outputs,
                            int fresh_reveal) {
  std::string line = fmt::format("{}:{}:{}", call_index, value_set, warmup ? 1 : 0);
  if (fresh_reveal >= 0) line += fmt::format(":f{}", fresh_reveal);
  return line + roots_text(outputs);
}

std::string witness_call_line(long long call_index, long long seed, const std::vector<OpenedOutput>& outputs) {
  return fmt::format("w{}:{}", call_index, seed) + roots_text(outputs);
}

std::string sample_digest(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& line : lines) all += line;
  return to_hex(sha256(all));
}

std::optional<OpeningFault> check_opening(const OpenedOutput& opened, const std::vector<std::size_t>& positions,
                                          const at::Tensor& expected, const Tolerance& tolerance,
                                          int64_t* elements_checked) {
  const auto broken = [](std::string what) { return OpeningFault{std::move(what), true}; };
  if (opened.dtype != c10::toString(expected.scalar_type()) || opened.sizes != expected.sizes().vec())
    return OpeningFault{fmt::format("an output of {} [{}], {} [{}] expected", opened.dtype, fmt::join(opened.sizes, ", "),
                                    c10::toString(expected.scalar_type()), fmt::join(expected.sizes(), ", "))};
  const at::Tensor flat = expected.reshape(-1).contiguous();
  const auto host_options = flat.options().device(at::kCPU);  // the opened bytes are on the host
  const std::size_t element = flat.element_size();
  const std::size_t bytes = flat.nbytes();
  const std::size_t leaves = merkle_leaves(bytes);
  const std::size_t depth = merkle_depth(leaves);
  if (!opened.positions.defined() || !opened.proofs.defined() || !opened.leaves.defined() ||
      opened.positions.scalar_type() != at::kLong || opened.proofs.scalar_type() != at::kByte ||
      opened.leaves.scalar_type() != at::kByte || opened.positions.numel() != int64_t(positions.size()) ||
      opened.proofs.numel() != int64_t(positions.size() * depth * 32))
    return broken("the opened leaves are not the ones revealed");
  const auto* committed_at = opened.positions.data_ptr<int64_t>();
  const auto* leaf_bytes = static_cast<const char*>(opened.leaves.data_ptr());
  const auto* proof_bytes = opened.proofs.data_ptr<std::uint8_t>();
  const auto proves = [&](std::size_t k, std::string_view leaf) {
    std::vector<Sha256Digest> path(depth);
    for (std::size_t d = 0; d < depth; ++d) std::memcpy(path[d].data(), proof_bytes + (k * depth + d) * 32, 32);
    return merkle_verify(opened.root, leaves, positions[k], leaf, path);
  };
  // Honest work first: every leaf proves and all opened elements match in one comparison (it is
  // elementwise, so the whole passes exactly when each leaf does). A comparison per leaf cost the
  // judge ~10 ms per call (1024 leaves of ~20 small tensor ops each), most of its time. Anything
  // else goes through the leaf-by-leaf pass below, which names the first fault in leaf order.
  {
    std::size_t offset = 0;
    bool whole = true;
    std::vector<at::Tensor> wanted;
    wanted.reserve(positions.size());
    for (std::size_t k = 0; whole && k < positions.size(); ++k) {
      const std::size_t start = positions[k] * kMerkleLeafBytes;
      const std::size_t length = start < bytes ? std::min(kMerkleLeafBytes, bytes - start) : 0;
      whole = std::size_t(committed_at[k]) == positions[k] && length > 0 &&
              offset + length <= std::size_t(opened.leaves.numel()) &&
              proves(k, std::string_view(leaf_bytes + offset, length));
      wanted.push_back(flat.narrow(0, int64_t(start / element), int64_t(length / element)));
      offset += length;
    }
    if (whole && offset == std::size_t(opened.leaves.numel())) {
      at::Tensor got = at::empty({int64_t(offset / element)}, host_options);
      if (offset) std::memcpy(got.data_ptr(), leaf_bytes, offset);
      if (compare_outputs({wanted.empty() ? got : at::cat(wanted).to(at::kCPU)}, {got}, tolerance).ok) {
        if (elements_checked) *elements_checked = got.numel();
        return std::nullopt;
      }
    }
  }
  std::size_t offset = 0;
  int64_t checked = 0;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (std::size_t(committed_at[k]) != positions[k]) return broken("the opened leaves are not the ones revealed");
    const std::size_t start = positions[k] * kMerkleLeafBytes;
    const std::size_t length = std::min(kMerkleLeafBytes, bytes - start);
    if (offset + length > std::size_t(opened.leaves.numel())) return broken("the opened leaves are truncated");
    const std::string_view leaf(leaf_bytes + offset, length);
    if (!proves(k, leaf))
      return broken(fmt::format("leaf {} does not prove against the root committed before the reveal", positions[k]));
    const int64_t first = int64_t(start / element), count = int64_t(length / element);
    at::Tensor got = at::empty({count}, host_options);
    std::memcpy(got.data_ptr(), leaf.data(), length);
    const ComparisonResult cmp = compare_outputs({flat.narrow(0, first, count).to(at::kCPU)}, {got}, tolerance);
    checked += count;
    if (!cmp.ok) {
      if (elements_checked) *elements_checked = checked;
      // compare_outputs names "output 0" (the one slice): the caller names the output.
      std::string reason = cmp.reason;
      if (reason.rfind("output 0: ", 0) == 0) reason = reason.substr(10);
      return OpeningFault{fmt::format("elements {}..{} (leaf {}): {}", first, first + count - 1, positions[k], reason),
                          false, checked};
    }
    offset += length;
  }
  if (offset != std::size_t(opened.leaves.numel())) return broken("the opened leaves have bytes left over");
  if (elements_checked) *elements_checked = checked;
  return std::nullopt;
}

}  // namespace kbench
