#pragma once
// Commit, then reveal, for the sampled check of an isolated candidate's timed calls
// (docs/threat-model.md). After each sample the candidate worker announces the digest of its
// calls' Merkle roots (`reveal <sha256>`, result_channel.hpp); the controller answers on fd 5
// with a seed drawn here, in its own process, and records the pair. Only then does the worker
// learn which leaves of each output to open; the judge reads the controller's record, so the
// leaves are the controller's choice and the roots were fixed before it was made.
#include <cstdint>
#include <string>
#include <vector>

namespace kbench {

struct CallReveal {
  std::string digest;  // what the worker announced (64 hex)
  std::uint64_t seed = 0;
  // Asked for inside the timing witness's window (exec/timing_witness.hpp): a group of witness
  // calls, not a sample of timed ones.
  bool witness = false;
};

// 64 bits from the controller's std::random_device: nothing in the worker can derive it.
std::uint64_t draw_reveal_seed();

// Fresh input values of a blinded candidate's calls (docs/threat-model.md): the seed of the
// values that input buffer `buffer` gets after reveal `reveal_seed` came back, i.e. for a call
// of the next sample or later. A function of the controller's seed only, so the judge derives
// it from the controller's record; in [kFirstFreshSeed, kFirstFreshSeed + kFreshSeeds), the
// range of every fresh value's seed (worker/fresh_inputs.hpp), apart from the suite's seeds, the
// timing sets' (5000 + i) and the timing witness's ([1e6, 1.001e9)).
inline constexpr long long kFirstFreshSeed = 1'100'000'000;
inline constexpr unsigned kFreshSeeds = 1'000'000'000u;
long long fresh_call_seed(std::uint64_t reveal_seed, int buffer);
// What a blinded candidate announces before its first sample, so that the controller's first
// seed exists before any fresh value does: reveal 0 has this digest and no calls.
std::string fresh_start_digest();

// The controller's record for the judge (a file in the judge's directory), and its reader:
// throws std::runtime_error naming what is wrong.
std::string encode_call_reveals(const std::vector<CallReveal>& reveals);
std::vector<CallReveal> decode_call_reveals(const std::string& text);

}  // namespace kbench
