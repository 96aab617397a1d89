#pragma once
// The SHA-256 compression function (FIPS 180-4), plain enough for host and device: the GPU
// Merkle kernels (integrity/merkle_kernels.cuh) and the host's portable path
// (core/sha256_compress.cpp, where the CPU has no SHA extensions) run this one copy.
#include <stdint.h>

#ifdef __CUDACC__
#define KBENCH_SHA256_FN __host__ __device__ inline
#else
#define KBENCH_SHA256_FN inline
#endif

// The 64 round constants, as a list: the one table behind this compress and the host's
// SHA-NI path (core/sha256_compress.cpp), which loads them four at a time.
#define KBENCH_SHA256_ROUND_CONSTANTS \
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, \
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, \
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, \
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, \
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, \
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, \
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, \
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2

namespace kbench::sha256_block {

KBENCH_SHA256_FN uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// The initial hash value.
KBENCH_SHA256_FN void start(uint32_t h[8]) {
  const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  for (int i = 0; i < 8; ++i) h[i] = initial[i];
}

// The digest: the state's words big-endian, 32 bytes at `out`.
KBENCH_SHA256_FN void finish(const uint32_t h[8], uint8_t* out) {
  for (int i = 0; i < 8; ++i)
    for (int r = 0; r < 4; ++r) out[4 * i + r] = uint8_t(h[i] >> (24 - 8 * r));
}

// One 64-byte block, as 16 big-endian words in `w` (used as the schedule: overwritten).
KBENCH_SHA256_FN void compress(uint32_t h[8], uint32_t w[16]) {
  const uint32_t k[64] = {KBENCH_SHA256_ROUND_CONSTANTS};
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int i = 0; i < 64; ++i) {
    if (i >= 16) {  // the message schedule, in place in a ring of 16 words
      const uint32_t w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
      const uint32_t s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
      const uint32_t s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
      w[i & 15] += s0 + w[(i - 7) & 15] + s1;
    }
    const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i & 15];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

}  // namespace kbench::sha256_block
