#include "worker/phase_signal.hpp"

#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

#include "exec/result_channel.hpp"

namespace kbench {
namespace {
int g_channel = -1;
bool g_announced = false;
int g_witness = -1;
bool g_witness_bound = false;  // a controller gave this worker fd 5 (tests may run it without)
}  // namespace

void set_witness_channel(int witness_fd) {
  g_witness = witness_fd;
  g_witness_bound = g_witness_bound || witness_fd >= 0;
}

// One line from the controller on fd 5. It writes one line per request and waits for the next,
// so no read returns more than the line asked for.
std::optional<std::string> read_controller_line() {
  std::string line;
  char buffer[4096];
  for (ssize_t n; line.find('\n') == std::string::npos && (n = read(g_witness, buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    line.append(buffer, std::size_t(n));
  }
  const auto newline = line.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  return line.substr(0, newline);
}

std::optional<std::string> request_witness_seeds() {
  if (g_witness < 0) return std::nullopt;
  announce_phase(std::string(kWitnessReadyPhase));
  // Left open: the witness's calls are opened in groups, by reveals (exec/timing_witness.hpp).
  return read_controller_line();
}

namespace {

// Announces `line` and reads the controller's seed in answer.
std::optional<std::uint64_t> ask_seed(const std::string& line) {
  if (!g_witness_bound) return std::nullopt;
  if (g_witness < 0) throw std::runtime_error("the controller's channel for reveals is closed");
  announce_phase(line);
  const auto answer = read_controller_line();
  if (!answer || answer->empty() || answer->find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("the controller sent no reveal seed");
  return std::stoull(*answer);
}

}  // namespace

std::optional<std::uint64_t> request_reveal(const std::string& digest_hex) {
  return ask_seed(std::string(kRevealPrefix) + digest_hex);
}

std::optional<std::uint64_t> close_witness_window(const std::string& digest_hex) {
  return ask_seed(std::string(kWitnessEndPrefix) + digest_hex);
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
