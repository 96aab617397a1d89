#include "exec/result_channel.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <stdexcept>

#include "core/hmac_sha256.hpp"

namespace kbench {
namespace {
constexpr std::string_view kMagic = "KBENCH-RESULT/1 ";
constexpr std::string_view kPhaseMagic = "KBENCH-PHASE/1 ";
constexpr std::size_t kMacHexSize = 64;
}  // namespace

std::string make_channel_key() {
  std::string key(32, '\0');
  std::size_t done = 0;
  while (done < key.size()) {
    const ssize_t n = getrandom(key.data() + done, key.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("getrandom failed: cannot make a result channel key");
    done += std::size_t(n);
  }
  return key;
}

std::string encode_phase_line(std::string_view phase) {
  return std::string(kPhaseMagic) + std::string(phase) + "\n";
}

std::string encode_result_frame(const std::string& payload, std::string_view key) {
  return std::string(kMagic) + std::to_string(payload.size()) + " " +
         to_hex(hmac_sha256(key, payload)) + "\n" + payload;
}

namespace {
bool is_hex64(std::string_view s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}
bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 100 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}
}  // namespace

bool is_known_phase(std::string_view phase) {
  if (phase == kRunPhase || phase == kBuildPhase || phase == kBuildEndPhase || phase == kImportPhase ||
      phase == kWitnessReadyPhase)
    return true;
  if (phase.substr(0, kWitnessEndPrefix.size()) == kWitnessEndPrefix)
    return is_hex64(phase.substr(kWitnessEndPrefix.size()));
  if (phase.substr(0, kRevealPrefix.size()) == kRevealPrefix) return is_hex64(phase.substr(kRevealPrefix.size()));
  if (phase.substr(0, kLockPrefix.size()) == kLockPrefix) {
    phase.remove_prefix(kLockPrefix.size());
    const auto space = phase.find(' ');
    if (space == std::string_view::npos) return false;
    const auto mode = phase.substr(0, space);
    return (mode == "none" || mode == "shared" || mode == "exclusive") && is_identifier(phase.substr(space + 1));
  }
  constexpr std::string_view built = "built ";
  if (phase.substr(0, built.size()) != built) return false;
  phase.remove_prefix(built.size());
  const auto a = phase.find(' ');
  const auto b = a == std::string_view::npos ? a : phase.find(' ', a + 1);
  if (b == std::string_view::npos) return false;
  return is_hex64(phase.substr(0, a)) && is_identifier(phase.substr(a + 1, b - a - 1)) &&
         is_hex64(phase.substr(b + 1));
}

std::vector<std::string> PhaseReader::next(const std::string& bytes) {
  std::vector<std::string> phases;
  while (!done_ && bytes.size() > offset_) {
    const std::size_t available = bytes.size() - offset_;
    const std::size_t n = std::min(available, kPhaseMagic.size());
    if (std::string_view(bytes).substr(offset_, n) != kPhaseMagic.substr(0, n)) {
      done_ = true;  // the frame (or garbage) follows; no phase line after it counts
      break;
    }
    const auto newline = bytes.find('\n', offset_);
    if (available < kPhaseMagic.size() || newline == std::string::npos) break;  // read again later
    phases.push_back(bytes.substr(offset_ + kPhaseMagic.size(), newline - offset_ - kPhaseMagic.size()));
    offset_ = newline + 1;
  }
  return phases;
}

bool run_phase_announced(const std::string& bytes) {
  PhaseReader reader;
  for (const auto& phase : reader.next(bytes))
    if (phase == kRunPhase) return true;
  return false;
}

std::optional<std::string> decode_result_frame(const std::string& bytes, std::string_view key,
                                               std::string* why) {
  auto reject = [&](const char* reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (bytes.empty()) return reject("the worker delivered no result");
  std::size_t start = 0;
  while (bytes.compare(start, kPhaseMagic.size(), kPhaseMagic) == 0) {
    const auto newline = bytes.find('\n', start);
    if (newline == std::string::npos ||
        !is_known_phase(std::string_view(bytes).substr(start + kPhaseMagic.size(),
                                                       newline - start - kPhaseMagic.size())))
      return reject("the result channel holds an unknown phase line");
    start = newline + 1;
  }
  if (start == bytes.size()) return reject("the worker delivered no result");
  if (bytes.compare(start, kMagic.size(), kMagic) != 0)
    return reject("the result channel holds bytes that are not a kbench frame");
  const std::size_t header = start + kMagic.size();
  const auto newline = bytes.find('\n', header);
  if (newline == std::string::npos) return reject("truncated frame header");
  const auto space = bytes.find(' ', header);
  if (space == std::string::npos || space > newline) return reject("frame without a MAC");
  std::size_t length = 0;
  try {
    std::size_t used = 0;
    length = std::stoull(bytes.substr(header, space - header), &used);
    if (used != space - header || bytes[header] == '-' || bytes[header] == '+')
      return reject("malformed frame length");
  } catch (const std::exception&) {
    return reject("malformed frame length");
  }
  const std::string mac = bytes.substr(space + 1, newline - space - 1);
  if (mac.size() != kMacHexSize) return reject("frame without a MAC");
  const std::size_t body = newline + 1;
  if (bytes.size() < body + length) return reject("truncated frame");
  if (bytes.size() > body + length) return reject("extra bytes after the result frame");
  std::string payload = bytes.substr(body, length);
  // Candidate code runs inside the worker and can write to the pipe; only the worker's own
  // frame carries a MAC under the key it read before any candidate code ran.
  if (!constant_time_equal(mac, to_hex(hmac_sha256(key, payload))))
    return reject("the result frame's MAC does not verify (forged or corrupted frame)");
  return payload;
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
