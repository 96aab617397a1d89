#include "core/sha256_compress.hpp"

#include <cstdlib>
#include <cstring>

#include "core/sha256_block.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KBENCH_HAVE_SHA_NI_PATH 1
#endif

namespace kbench {

void sha256_compress_portable(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks) {
  for (; blocks > 0; --blocks, data += 64) {
    std::uint32_t w[16];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(data[4 * i]) << 24 | std::uint32_t(data[4 * i + 1]) << 16 |
             std::uint32_t(data[4 * i + 2]) << 8 | std::uint32_t(data[4 * i + 3]);
    sha256_block::compress(state, w);
  }
}

namespace {

#ifdef KBENCH_HAVE_SHA_NI_PATH
alignas(16) constexpr std::uint32_t kRoundConstants[64] = {KBENCH_SHA256_ROUND_CONSTANTS};

// Intel's SHA extensions keep the state as two vectors, ABEF and CDGH; each sha256rnds2 does two
// rounds, and sha256msg1/msg2 extend the message schedule four words at a time.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_sha_ni(std::uint32_t state[8], const std::uint8_t* data,
                                                                   std::size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  hgfe = _mm_shuffle_epi32(hgfe, 0x1B);                 // efgh
  __m128i abef = _mm_alignr_epi8(cdab, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, cdab, 0xF0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    __m128i w[4];
    for (int i = 0; i < 16; ++i) {
      __m128i words;
      if (i < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i)), byte_swap);
      } else {
        // W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]), four at a time.
        const __m128i& w4 = w[i & 3];         // words t-16..t-13
        const __m128i& w3 = w[(i + 1) & 3];   // t-12..t-9
        const __m128i& w2 = w[(i + 2) & 3];   // t-8..t-5
        const __m128i& w1 = w[(i + 3) & 3];   // t-4..t-1
        words = _mm_sha256msg1_epu32(w4, w3);
        words = _mm_add_epi32(words, _mm_alignr_epi8(w1, w2, 4));
        words = _mm_sha256msg2_epu32(words, w1);
      }
      w[i & 3] = words;
      __m128i k = _mm_add_epi32(words, _mm_load_si128(reinterpret_cast<const __m128i*>(kRoundConstants + 4 * i)));
      // Two rounds make the old ABEF the new CDGH: the first result lands in `cdgh`'s place, the
      // second in `abef`'s, so after four rounds each name holds its half again.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
      k = _mm_shuffle_epi32(k, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, k);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

bool cpu_has_sha_ni() { return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1"); }
#endif

using CompressFn = void (*)(std::uint32_t*, const std::uint8_t*, std::size_t);

CompressFn chosen() {
  static const CompressFn fn = [] {
    const char* forced = std::getenv("KBENCH_SHA256");
    if (forced && std::strcmp(forced, "portable") == 0) return &sha256_compress_portable;
#ifdef KBENCH_HAVE_SHA_NI_PATH
    if (cpu_has_sha_ni()) return &compress_sha_ni;
#endif
    return &sha256_compress_portable;
  }();
  return fn;
}

}  // namespace

void sha256_compress_blocks(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks) {
  chosen()(state, data, blocks);
}

bool sha256_compress_sha_ni(std::uint32_t state[8], const std::uint8_t* data, std::size_t blocks) {
#ifdef KBENCH_HAVE_SHA_NI_PATH
  if (cpu_has_sha_ni()) {
    compress_sha_ni(state, data, blocks);
    return true;
  }
#endif
  (void)state, (void)data, (void)blocks;
  return false;
}

const char* sha256_engine() { return chosen() == &sha256_compress_portable ? "portable" : "sha-ni"; }

}  // namespace kbench
