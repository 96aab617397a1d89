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
};

// 64 bits from the controller's std::random_device: nothing in the worker can derive it.
std::uint64_t draw_reveal_seed();

// The controller's record for the judge (a file in the judge's directory), and its reader:
// throws std::runtime_error naming what is wrong.
std::string encode_call_reveals(const std::vector<CallReveal>& reveals);
std::vector<CallReveal> decode_call_reveals(const std::string& text);

}  // namespace kbench
