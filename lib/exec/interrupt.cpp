#include "exec/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace kbench {
namespace {
std::atomic<int> g_signals{0};

extern "C" void on_interrupt(int) {
  // Only async-signal-safe work here: an atomic increment and write(2).
  const int seen = g_signals.fetch_add(1);
  if (seen == 0) {
    static const char kNotice[] =
        "\nkbench: interrupted: no new jobs start; running jobs finish and the reports are "
        "written. Press Ctrl-C again to kill running jobs.\n";
    [[maybe_unused]] auto ignored = write(STDERR_FILENO, kNotice, sizeof(kNotice) - 1);
  } else if (seen == 1) {
    // The second stage is as visible as the first: the user must know their keypress counted.
    static const char kKill[] =
        "\nkbench: interrupted again: killing the running jobs; what finished is reported.\n";
    [[maybe_unused]] auto ignored = write(STDERR_FILENO, kKill, sizeof(kKill) - 1);
  }
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return g_signals.load() >= 1; }
bool kill_requested() { return g_signals.load() >= 2; }
void request_interrupt() { g_signals.fetch_add(1); }
void reset_interrupts() { g_signals.store(0); }

}  // namespace kbench
