// Host hashing throughput (core/sha256_compress.hpp, core/merkle_tree.hpp): SHA-256 over one large
// buffer on each compression path, and the Merkle tree a committed output gets
// (integrity/output_opening.cpp) on 1 and 8 threads. A large-output job hashes GBs: its reference
// work and commitment files whole, and the tree of every checked call's outputs.
// Usage: kbench-hash-bench [MiB]   (default 256)
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "core/hmac_sha256.hpp"
#include "core/merkle_tree.hpp"
#include "core/sha256_compress.hpp"

namespace {

template <typename Work>
double seconds_of(const Work& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kbench;
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  std::string data(mib << 20, '\0');
  for (std::size_t i = 0; i < data.size(); i += 64) data[i] = char(i * 131);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::size_t blocks = data.size() / 64;
  fmt::print("host hashing of {} MiB (engine used: {})\n", mib, sha256_engine());
  fmt::print("{:<34} {:>9} {:>10}\n", "what", "seconds", "MB/s");
  const auto row = [&](const std::string& what, double s) { fmt::print("{:<34} {:>9.3f} {:>10.0f}\n", what, s, mib * 1.048576 / s); };
  std::uint32_t state[8] = {};
  row("sha256 compress, portable", seconds_of([&] { sha256_compress_portable(state, bytes, blocks); }));
  if (sha256_compress_sha_ni(state, bytes, 1))
    row("sha256 compress, sha-ni", seconds_of([&] { sha256_compress_sha_ni(state, bytes, blocks); }));
  row("sha256() of the buffer", seconds_of([&] { (void)sha256(data); }));
  for (unsigned threads : {1u, 8u})
    row(fmt::format("Merkle tree, 256 B leaves, {} thr", threads),
        seconds_of([&] { MerkleTree tree(bytes, data.size(), kMerkleLeafBytes, threads); }));
  return int(state[0] == 1);
}
