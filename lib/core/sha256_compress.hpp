#pragma once
// SHA-256's compression over whole 64-byte blocks on the host, with the CPU's SHA extensions
// where it has them (x86 SHA-NI: ~4x the portable path's 260 MB/s per core). Every host digest
// goes through here (core/hmac_sha256.cpp): reference work and commitments of GBs, and the
// Merkle trees of every committed call's outputs, were hashed at the portable speed and
// dominated a large-output job's CPU time (benchmarks/hashing/README.md).
#include <cstddef>
#include <cstdint>

namespace kbench {

// Advances `state` over `blocks` consecutive 64-byte blocks at `data`.
void sha256_compress_blocks(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks);

// The two paths, for tests and the benchmark: the portable one always; the SHA-NI one only where
// the CPU has the extensions (false, state untouched, where it does not).
void sha256_compress_portable(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks);
bool sha256_compress_sha_ni(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks);

// "sha-ni" or "portable": the path sha256_compress_blocks takes on this machine. The environment
// variable KBENCH_SHA256=portable forces the portable one (tests compare the two).
const char* sha256_engine();

}  // namespace kbench
