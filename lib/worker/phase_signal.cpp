#include "worker/phase_signal.hpp"

#include <stdexcept>

#include "exec/result_channel.hpp"

namespace kbench {
namespace {
int g_channel = -1;
bool g_announced = false;
}  // namespace

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
