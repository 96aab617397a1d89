#pragma once
// What the number of off-stream samples says about a candidate (the side_stream check).
//
// The CUDA event timer marks a sample off-stream when a device-wide synchronisation after the
// end event took more than max(50 us, 5% of the sample) of host time. An honest candidate can
// trip that when the host thread is descheduled between the two (8 workers on 16 cores): on the
// H200 that happened to 3 honest candidates, once each in ~2000 samples (0.05%). Work that a
// candidate really leaves on another stream shows in every call that does it. So a count is
// only evidence above what host noise gives: noise is modelled as independent events at
// kOffstreamNoiseRate per sample (twice the worst honest rate seen), and a count is flagged
// when noise alone reaches it with probability below kOffstreamNoiseP.
#include <cstddef>

namespace kbench {

enum class OffstreamVerdict { none, flag, reject };

inline constexpr double kOffstreamNoiseRate = 0.001;
inline constexpr double kOffstreamNoiseP = 0.001;

// The largest count that host noise explains: the smallest k with
// P(Binomial(samples, kOffstreamNoiseRate) > k) < kOffstreamNoiseP. 2000 samples: 8 (0.4%);
// 200: 3; 20: 1.
int offstream_noise_allowance(std::size_t samples);

// none at or below the allowance; reject when at least half of >= 3 samples (the candidate
// works off-stream as a rule); flag in between.
OffstreamVerdict judge_offstream(int offstream_samples, std::size_t samples);

}  // namespace kbench
