#pragma once
// The worker -> controller result channel: a private pipe (not stdout/stderr, which belong to
// the candidate) carrying exactly one length-prefixed frame. Anything else on the pipe (a second
// frame, stray bytes, a short frame) makes the decoder refuse the whole message.
#include <optional>
#include <string>

namespace kbench {

std::string encode_result_frame(const std::string& payload);
// The payload, or nullopt with `why` set when `bytes` is not exactly one well-formed frame.
std::optional<std::string> decode_result_frame(const std::string& bytes, std::string* why);

// Writes all of `bytes` to `fd`, retrying on EINTR; false on error.
bool write_all(int fd, const std::string& bytes);

}  // namespace kbench
