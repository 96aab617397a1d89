#pragma once
// The worker -> controller result channel: a private pipe (not stdout/stderr, which belong to
// the candidate). It carries zero or more phase lines, then exactly one length-prefixed frame
// authenticated with HMAC-SHA256 under a per-job key:
//   KBENCH-PHASE/1 run\n                      (the compile phase is over; docs/sandbox.md)
//   KBENCH-RESULT/1 <length> <hmac hex>\n<payload>
// Anything else (a second frame, stray bytes, a short frame, a bad MAC) makes the decoder refuse
// the whole message.
#include <optional>
#include <string>
#include <string_view>

namespace kbench {

// The one phase a worker announces: compilation is over, the run limit applies from now on.
inline constexpr std::string_view kRunPhase = "run";

// 32 random bytes from the kernel (getrandom).
std::string make_channel_key();

std::string encode_phase_line(std::string_view phase);
std::string encode_result_frame(const std::string& payload, std::string_view key);

// True when `bytes` starts with a complete "run" phase line (the controller asks while the
// worker still runs, so a partial or later frame does not matter here).
bool run_phase_announced(const std::string& bytes);

// The payload, or nullopt with `why` set when `bytes` is not phase lines followed by exactly one
// well-formed frame whose MAC verifies under `key`.
std::optional<std::string> decode_result_frame(const std::string& bytes, std::string_view key,
                                               std::string* why);

// Writes all of `bytes` to `fd`, retrying on EINTR; false on error.
bool write_all(int fd, const std::string& bytes);

}  // namespace kbench
