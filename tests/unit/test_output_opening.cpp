// Commit, then reveal, of one sampled call's output (integrity/output_opening.hpp): an honest
// output opens and matches; an output right only at elements chosen before the reveal is caught;
// leaves that are not the revealed ones, or that do not prove against the committed root, break
// the commitment, whatever their values.
#include <ATen/ATen.h>

#include "catch.hpp"
#include "integrity/output_opening.hpp"

using namespace kbench;

namespace {

const Tolerance kTolerance{1e-5, 1e-5};

at::Tensor expected_output(int64_t n) { return at::arange(n, at::kFloat).mul_(0.5).reshape({n / 64, 64}); }

}  // namespace

TEST_CASE("an honest output opens at the revealed leaves and matches") {
  for (int64_t n : {64, 4096, 64 * 1000}) {
    const at::Tensor want = expected_output(n);
    CommittedOutput committed = commit_output(want.clone());
    const auto positions = opening_positions(12345, 0, 0, committed.tree.leaves(), 1024);
    // At most 1024 leaves: every one is opened; beyond, 1024 draws.
    CHECK(positions.size() == std::min<std::size_t>(committed.tree.leaves(), 1024));
    open_output(committed, positions);
    int64_t checked = 0;
    CHECK_FALSE(check_opening(committed.opened, positions, want, kTolerance, &checked));
    CHECK(checked == std::min<int64_t>(n, 1024 * 64));
  }
}

TEST_CASE("right only where it guessed the check would look: caught once the leaves come after the roots") {
  const int64_t n = 64 * 4096;  // 4096 leaves, 1024 opened
  const at::Tensor want = expected_output(n);
  // Correct on the leaves of one guessed seed, zeros elsewhere.
  at::Tensor guessed = at::zeros_like(want);
  const auto guess = opening_positions(1, 0, 0, 4096, 1024);
  for (auto leaf : guess) guessed.reshape(-1).narrow(0, int64_t(leaf) * 64, 64).copy_(want.reshape(-1).narrow(0, int64_t(leaf) * 64, 64));
  CommittedOutput committed = commit_output(guessed);
  // Opened where it guessed: it passes (what an in-process draw allowed).
  open_output(committed, guess);
  CHECK_FALSE(check_opening(committed.opened, guess, want, kTolerance));
  // The controller's seed, drawn after the root: caught on the values.
  const auto revealed = opening_positions(987654321, 0, 0, 4096, 1024);
  open_output(committed, revealed);
  const auto fault = check_opening(committed.opened, revealed, want, kTolerance);
  REQUIRE(fault);
  CHECK_FALSE(fault->commitment_broken);
  CHECK(fault->what.find("leaf") != std::string::npos);
  // Opening its guessed leaves under the controller's seed breaks the commitment.
  open_output(committed, guess);
  const auto swapped = check_opening(committed.opened, revealed, want, kTolerance);
  REQUIRE(swapped);
  CHECK(swapped->commitment_broken);
}

TEST_CASE("leaves changed after the root, another root, or another shape break the commitment") {
  const at::Tensor want = expected_output(64 * 50);
  CommittedOutput committed = commit_output(want.clone());
  const auto positions = opening_positions(7, 2, 1, committed.tree.leaves(), 1024);
  open_output(committed, positions);
  OpenedOutput changed = committed.opened;
  changed.leaves = changed.leaves.clone();
  changed.leaves[10] = changed.leaves[10].item<uint8_t>() ^ 1;
  auto fault = check_opening(changed, positions, want, kTolerance);
  REQUIRE(fault);
  CHECK(fault->commitment_broken);
  CHECK(fault->what.find("does not prove against the root") != std::string::npos);
  OpenedOutput rerooted = committed.opened;
  rerooted.root[0] ^= 1;
  fault = check_opening(rerooted, positions, want, kTolerance);
  REQUIRE(fault);
  CHECK(fault->commitment_broken);
  OpenedOutput truncated = committed.opened;
  truncated.leaves = truncated.leaves.narrow(0, 0, truncated.leaves.numel() - 4);
  CHECK(check_opening(truncated, positions, want, kTolerance));
  // Another shape is a wrong output, named with both shapes.
  fault = check_opening(committed.opened, positions, want.reshape({-1}), kTolerance);
  REQUIRE(fault);
  CHECK(fault->what.find("expected") != std::string::npos);
  // The digest of a sample names every call's index, set, warm-up and roots.
  const std::string line = commitment_line(3, 1, false, {committed.opened});
  CHECK(line.rfind("3:1:0:Float:50x64:", 0) == 0);
  CHECK(sample_digest({line}) != sample_digest({commitment_line(3, 0, false, {committed.opened})}));
}

TEST_CASE("the first fault in leaf order is named, as leaf by leaf: a wrong value before a broken proof") {
  // Honest openings are compared in one pass; any fault is named by the leaf-by-leaf pass, so a
  // wrong value in an earlier opened leaf stands before a broken proof in a later one, and the
  // elements counted are those up to the fault.
  const int64_t n = 64 * 50;  // 50 leaves of 64 floats, all opened
  const at::Tensor want = expected_output(n);
  at::Tensor wrong = want.clone();
  wrong.reshape(-1)[3 * 64 + 5] = -1.0f;  // leaf 3
  CommittedOutput committed = commit_output(wrong);
  const auto positions = opening_positions(7, 0, 0, committed.tree.leaves(), 1024);
  open_output(committed, positions);
  // A later opened leaf changed after the root: its proof breaks.
  static_cast<std::uint8_t*>(committed.opened.leaves.data_ptr())[40 * 256 + 1] ^= 0xff;
  int64_t checked = 0;
  const auto fault = check_opening(committed.opened, positions, want, kTolerance, &checked);
  REQUIRE(fault);
  CHECK_FALSE(fault->commitment_broken);
  CHECK(fault->what.find("leaf 3") != std::string::npos);
  CHECK(checked == 4 * 64);
  // Without the wrong value, the broken proof is the fault.
  CommittedOutput honest = commit_output(want.clone());
  open_output(honest, positions);
  static_cast<std::uint8_t*>(honest.opened.leaves.data_ptr())[40 * 256 + 1] ^= 0xff;
  const auto broken = check_opening(honest.opened, positions, want, kTolerance);
  REQUIRE(broken);
  CHECK(broken->commitment_broken);
  CHECK(broken->what.find("leaf 40") != std::string::npos);
}

TEST_CASE("committed where it is or on the host: one root, the same openings, a short last leaf included") {
  // 1000 float32: 15 whole leaves and one of 160 bytes; 64 * 3000: 3000 leaves, 1024 drawn.
  for (int64_t n : {int64_t(1000), int64_t(64 * 3000)}) {
    const at::Tensor want = at::arange(n, at::kFloat).mul_(0.25);
    CommittedOutput host = commit_output(want);
    CommittedOutput in_place = commit_output_in_place(want);
    CHECK(host.opened.root == in_place.opened.root);
    CHECK(host.opened.root == tensor_merkle_root(want));
    auto positions = opening_positions(99, 1, 0, host.tree.leaves(), 1024);
    positions.push_back(host.tree.leaves() - 1);  // the last leaf, short for n = 1000
    open_output(host, positions);
    open_output(in_place, positions);
    CHECK(at::equal(host.opened.leaves, in_place.opened.leaves));
    CHECK(at::equal(host.opened.proofs, in_place.opened.proofs));
    CHECK_FALSE(check_opening(in_place.opened, positions, want, kTolerance));
  }
  // The copy is the tree's own: writing the output after the commit changes nothing opened.
  at::Tensor output = at::ones({64 * 4}, at::kFloat);
  CommittedOutput committed = commit_output_in_place(output);
  output.fill_(7);
  open_output(committed, {0, 1, 2, 3});
  CHECK_FALSE(check_opening(committed.opened, {0, 1, 2, 3}, at::ones({64 * 4}, at::kFloat), kTolerance));
}
