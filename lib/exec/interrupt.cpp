#include "exec/interrupt.hpp"

#include <signal.h>

#include <atomic>

namespace kbench {
namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return g_interrupted.load(); }
void request_interrupt() { g_interrupted.store(true); }

}  // namespace kbench
