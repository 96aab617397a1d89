#include "worker/phase_signal.hpp"

#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "exec/result_channel.hpp"

namespace kbench {
namespace {
int g_channel = -1;
bool g_announced = false;
int g_witness = -1;
}  // namespace

void set_witness_channel(int witness_fd) { g_witness = witness_fd; }

std::optional<std::string> request_witness_seeds() {
  if (g_witness < 0) return std::nullopt;
  announce_phase(std::string(kWitnessReadyPhase));
  std::string line;
  char buffer[4096];
  for (ssize_t n; line.find('\n') == std::string::npos && (n = read(g_witness, buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    line.append(buffer, std::size_t(n));
  }
  close(g_witness);
  g_witness = -1;
  const auto newline = line.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  return line.substr(0, newline);
}

void set_phase_channel(int result_fd) { g_channel = result_fd; }

void announce_run_phase() {
  if (g_announced || g_channel < 0) return;
  g_announced = true;
  // A failed write shows up later, when the final frame cannot be written either.
  write_all(g_channel, encode_phase_line(kRunPhase));
}

void announce_phase(const std::string& phase) {
  if (!is_known_phase(phase)) throw std::invalid_argument("unknown phase line: " + phase);
  if (g_channel >= 0) write_all(g_channel, encode_phase_line(phase));
}

}  // namespace kbench
