#pragma once
// The worker -> controller result channel: a private pipe (not stdout/stderr, which belong to
// the candidate). It carries zero or more phase lines, then exactly one length-prefixed frame
// authenticated with HMAC-SHA256 under a per-job key:
//   KBENCH-PHASE/1 run\n                      (the compile phase is over; docs/sandbox.md)
//   KBENCH-PHASE/1 build\n, build-end\n        (an extension build starts / ends: build_timeout_s)
//   KBENCH-PHASE/1 built <key> <name> <sha256>\n (a prebuilt extension; docs/extensions.md)
//   KBENCH-PHASE/1 import\n                   (the candidate is imported next: lines after it
//                                               may be the candidate's own and are not trusted)
//   KBENCH-PHASE/1 witness-ready\n            (an isolated candidate asks for its witness seeds;
//                                               exec/timing_witness.hpp)
//   KBENCH-PHASE/1 witness-end <sha256>\n     (the witness calls are done; their outputs' digest)
//   KBENCH-PHASE/1 reveal <sha256>\n          (an isolated candidate committed one sample's calls
//                                               (their Merkle roots' digest) and asks which leaves
//                                               to open; integrity/call_audit.hpp)
//   KBENCH-PHASE/1 lock <none|shared|exclusive> <phase>\n (the worker took that mode of the GPU
//                                               lock in that evaluation phase: who held it, for
//                                               the waits the controller charges, lock_blame.hpp)
//   KBENCH-RESULT/1 <length> <hmac hex>\n<payload>
// Anything else (a second frame, stray bytes, a short frame, a bad MAC) makes the decoder refuse
// the whole message.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

// The one phase a worker announces: compilation is over, the run limit applies from now on.
inline constexpr std::string_view kRunPhase = "run";

inline constexpr std::string_view kBuildPhase = "build";
inline constexpr std::string_view kBuildEndPhase = "build-end";
inline constexpr std::string_view kImportPhase = "import";
inline constexpr std::string_view kWitnessReadyPhase = "witness-ready";
inline constexpr std::string_view kWitnessEndPrefix = "witness-end ";
inline constexpr std::string_view kRevealPrefix = "reveal ";
inline constexpr std::string_view kLockPrefix = "lock ";

// True for the phases above, `built <64 hex> <identifier> <64 hex>`, `witness-end <64 hex>`,
// `reveal <64 hex>` and `lock <mode> <identifier>`.
bool is_known_phase(std::string_view phase);

// Reads the phase lines at the start of a growing channel buffer, each complete line once.
class PhaseReader {
 public:
  // The phases (without the magic) completed since the last call; stops at anything else.
  std::vector<std::string> next(const std::string& bytes);

 private:
  std::size_t offset_ = 0;
  bool done_ = false;
};

// 32 random bytes from the kernel (getrandom).
std::string make_channel_key();

std::string encode_phase_line(std::string_view phase);
std::string encode_result_frame(const std::string& payload, std::string_view key);

// True when the phase lines at the start of `bytes` include a complete "run" line (the
// controller asks while the worker still runs, so a partial or later frame does not matter).
bool run_phase_announced(const std::string& bytes);

// The payload, or nullopt with `why` set when `bytes` is not phase lines followed by exactly one
// well-formed frame whose MAC verifies under `key`.
std::optional<std::string> decode_result_frame(const std::string& bytes, std::string_view key,
                                               std::string* why);

// Writes all of `bytes` to `fd`, retrying on EINTR; false on error.
bool write_all(int fd, const std::string& bytes);

}  // namespace kbench
