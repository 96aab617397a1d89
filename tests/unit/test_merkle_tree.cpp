// The Merkle commitment of outputs (core/merkle_tree.hpp): every leaf of trees of many shapes
// proves against its root; a changed byte, another position, a shortened proof or a leaf of
// another tree does not; reveal positions are a function of the seed and cover the range.
#include <numeric>
#include <set>
#include <string>

#include "catch.hpp"
#include "core/merkle_tree.hpp"

using namespace kbench;

namespace {

std::string bytes_of(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = char((i * 131 + 7) % 251);
  return s;
}

std::string_view leaf_of(const std::string& s, std::size_t i, std::size_t leaf_bytes) {
  return std::string_view(s).substr(i * leaf_bytes, leaf_bytes);
}

const std::uint8_t* data_of(const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }

}  // namespace

TEST_CASE("every leaf proves against the root, for odd and even trees, on one thread or several") {
  for (std::size_t n : {1u, 5u, 256u, 257u, 1000u, 4096u, 256u * 7 + 3, 256u * 3000}) {
    const std::string s = bytes_of(n);
    const MerkleTree tree(data_of(s), s.size(), 256, 1);
    const MerkleTree threaded(data_of(s), s.size(), 256, 4);
    INFO("bytes " << n);
    CHECK(tree.root() == threaded.root());
    CHECK(tree.leaves() == merkle_leaves(n));
    for (std::size_t i = 0; i < tree.leaves(); i += 1 + tree.leaves() / 50) {
      const auto proof = tree.proof(i);
      CHECK(proof.size() == merkle_depth(tree.leaves()));
      CHECK(merkle_verify(tree.root(), tree.leaves(), i, leaf_of(s, i, 256), proof));
    }
    const std::size_t last = tree.leaves() - 1;
    CHECK(merkle_verify(tree.root(), tree.leaves(), last, leaf_of(s, last, 256), tree.proof(last)));
  }
}

TEST_CASE("a changed byte, another position, a wrong proof or another tree's leaf does not prove") {
  const std::string s = bytes_of(256 * 37 + 11);
  const MerkleTree tree(data_of(s), s.size());
  const std::size_t i = 12;
  const auto proof = tree.proof(i);
  std::string leaf(leaf_of(s, i, 256));
  leaf[100] = char(leaf[100] ^ 1);
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), i, leaf, proof));
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), i + 1, leaf_of(s, i, 256), proof));
  auto shorter = proof;
  shorter.pop_back();
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), i, leaf_of(s, i, 256), shorter));
  // The leaf count is the verifier's (from the expected output's size): another depth fails.
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves() * 2, i, leaf_of(s, i, 256), proof));
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), tree.leaves(), leaf_of(s, i, 256), proof));
  // The same bytes changed in one place: another root, and the old proofs fail against it.
  std::string changed = s;
  changed[256 * 20] = char(changed[256 * 20] ^ 0x80);
  const MerkleTree other(data_of(changed), changed.size());
  CHECK(other.root() != tree.root());
  CHECK_FALSE(merkle_verify(other.root(), other.leaves(), 20, leaf_of(s, 20, 256), tree.proof(20)));
  // An inner node is not a leaf (domain separation): the two children's digests as a "leaf".
  const auto level1 = tree.proof(0);
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), 0, std::string(64, 'x'), level1));
  // The odd level's self-paired node cannot be replaced by a made-up sibling.
  const std::size_t last = tree.leaves() - 1;  // 37 full leaves + 1: 38 leaves, 19, then odd
  auto forged = tree.proof(last);
  for (auto& d : forged) d[0] ^= 1;
  CHECK_FALSE(merkle_verify(tree.root(), tree.leaves(), last, leaf_of(s, last, 256), forged));
  // The empty output has one fixed root and no leaf.
  const MerkleTree empty(nullptr, 0);
  CHECK(empty.leaves() == 0);
  CHECK(empty.root() == merkle_empty_root());
}

TEST_CASE("reveal positions: a function of the seed, uniform over the leaves") {
  const auto a = merkle_reveal_positions(42, 1000, 1024);
  CHECK(a == merkle_reveal_positions(42, 1000, 1024));
  CHECK(a != merkle_reveal_positions(43, 1000, 1024));
  REQUIRE(a.size() == 1024);
  std::set<std::size_t> distinct(a.begin(), a.end());
  CHECK(*distinct.rbegin() < 1000);
  CHECK(distinct.size() > 600);  // 1024 draws from 1000: ~640 distinct expected
  const double mean = std::accumulate(a.begin(), a.end(), 0.0) / double(a.size());
  CHECK(mean > 450);
  CHECK(mean < 550);
  CHECK(merkle_reveal_positions(1, 0, 10).empty());
  CHECK(merkle_reveal_positions(1, 1, 3) == std::vector<std::size_t>{0, 0, 0});
}
