#include "core/merkle_tree.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

namespace kbench {
namespace {

Sha256Digest leaf_hash(const std::uint8_t* data, std::size_t n) {
  const std::uint8_t prefix = 0;
  return Sha256().update(&prefix, 1).update(data, n).finish();
}

Sha256Digest node_hash(const Sha256Digest& left, const Sha256Digest& right) {
  const std::uint8_t prefix = 1;
  return Sha256().update(&prefix, 1).update(left.data(), left.size()).update(right.data(), right.size()).finish();
}

// `work(from, to)` over [0, count) on up to `threads` threads (chunks of at least 1024 items).
template <typename Work>
void in_parallel(std::size_t count, unsigned threads, const Work& work) {
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(count / 1024 + 1)));
  if (threads == 1) return work(std::size_t{0}, count);
  std::vector<std::thread> pool;
  const std::size_t share = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(work, std::min(count, t * share), std::min(count, (t + 1) * share));
  for (auto& worker : pool) worker.join();
}

}  // namespace

std::size_t merkle_leaves(std::size_t bytes, std::size_t leaf_bytes) {
  if (leaf_bytes == 0) throw std::invalid_argument("Merkle leaves must have bytes");
  return (bytes + leaf_bytes - 1) / leaf_bytes;
}

std::size_t merkle_depth(std::size_t leaves) {
  std::size_t depth = 0;
  for (std::size_t n = leaves; n > 1; n = (n + 1) / 2) ++depth;
  return depth;
}

std::vector<std::size_t> merkle_proof_nodes(std::size_t leaves, std::size_t leaf) {
  if (leaf >= leaves) throw std::out_of_range("no such Merkle leaf");
  std::vector<std::size_t> nodes;
  for (std::size_t level_start = 0, n = leaves; n > 1; level_start += n, n = (n + 1) / 2, leaf /= 2)
    nodes.push_back(level_start + std::min(leaf ^ 1, n - 1));
  return nodes;
}

Sha256Digest merkle_empty_root() { return sha256(std::string_view("\2", 1)); }

MerkleTree::MerkleTree(const std::uint8_t* data, std::size_t bytes, std::size_t leaf_bytes, unsigned threads)
    : leaves_(merkle_leaves(bytes, leaf_bytes)) {
  if (leaves_ == 0) {
    levels_.push_back({merkle_empty_root()});
    return;
  }
  std::vector<Sha256Digest> level(leaves_);
  in_parallel(leaves_, threads, [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      const std::size_t offset = i * leaf_bytes;
      level[i] = leaf_hash(data + offset, std::min(leaf_bytes, bytes - offset));
    }
  });
  levels_.push_back(std::move(level));
  // The levels above hold as many nodes again as the leaves: threaded too, or they would be
  // most of a large tree's time.
  while (levels_.back().size() > 1) {
    const auto& below = levels_.back();
    std::vector<Sha256Digest> above((below.size() + 1) / 2);
    in_parallel(above.size(), threads, [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to; ++i)
        above[i] = node_hash(below[2 * i], below[std::min(2 * i + 1, below.size() - 1)]);
    });
    levels_.push_back(std::move(above));
  }
}

std::vector<Sha256Digest> MerkleTree::proof(std::size_t leaf) const {
  if (leaf >= leaves_) throw std::out_of_range("no such Merkle leaf");
  std::vector<Sha256Digest> path;
  for (std::size_t level = 0; level + 1 < levels_.size(); ++level, leaf /= 2) {
    const auto& nodes = levels_[level];
    path.push_back(nodes[std::min(leaf ^ 1, nodes.size() - 1)]);
  }
  return path;
}

bool merkle_verify(const Sha256Digest& root, std::size_t leaves, std::size_t index, std::string_view leaf,
                   const std::vector<Sha256Digest>& proof) {
  if (index >= leaves || proof.size() != merkle_depth(leaves)) return false;
  Sha256Digest at = leaf_hash(reinterpret_cast<const std::uint8_t*>(leaf.data()), leaf.size());
  std::size_t width = leaves;
  for (const auto& sibling : proof) {
    // The last node of an odd level is paired with itself: its "sibling" must be itself.
    if ((index ^ 1) >= width && sibling != at) return false;
    at = index % 2 == 0 ? node_hash(at, sibling) : node_hash(sibling, at);
    index /= 2;
    width = (width + 1) / 2;
  }
  return constant_time_equal(std::string_view(reinterpret_cast<const char*>(at.data()), at.size()),
                             std::string_view(reinterpret_cast<const char*>(root.data()), root.size()));
}

std::vector<std::size_t> merkle_reveal_positions(std::uint64_t seed, std::size_t leaves, std::size_t count) {
  std::vector<std::size_t> out;
  if (leaves == 0) return out;
  // mt19937_64 is fully specified by the standard; the draw below is written out (not
  // uniform_int_distribution, whose algorithm is the library's) so every build agrees.
  std::mt19937_64 generator(seed);
  const std::uint64_t n = leaves;
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // rejection: exactly uniform
  out.reserve(count);
  while (out.size() < count) {
    const std::uint64_t x = generator();
    if (x < limit) out.push_back(std::size_t(x % n));
  }
  return out;
}

}  // namespace kbench
