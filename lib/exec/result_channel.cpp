#include "exec/result_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace kbench {
namespace {
constexpr std::string_view kMagic = "KBENCH-RESULT/1 ";
}

std::string encode_result_frame(const std::string& payload) {
  return std::string(kMagic) + std::to_string(payload.size()) + "\n" + payload;
}

std::optional<std::string> decode_result_frame(const std::string& bytes, std::string* why) {
  auto reject = [&](const char* reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (bytes.empty()) return reject("the worker delivered no result");
  if (bytes.compare(0, kMagic.size(), kMagic) != 0)
    return reject("the result channel holds bytes that are not a kbench frame");
  const auto newline = bytes.find('\n', kMagic.size());
  if (newline == std::string::npos) return reject("truncated frame header");
  std::size_t length = 0;
  try {
    std::size_t used = 0;
    length = std::stoull(bytes.substr(kMagic.size(), newline - kMagic.size()), &used);
    if (used != newline - kMagic.size()) return reject("malformed frame length");
  } catch (const std::exception&) {
    return reject("malformed frame length");
  }
  const std::size_t body = newline + 1;
  if (bytes.size() < body + length) return reject("truncated frame");
  if (bytes.size() > body + length) return reject("extra bytes after the result frame");
  return bytes.substr(body, length);
}

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

}  // namespace kbench
