#include "core/crash_backtrace.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace kbench {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[sizeof(kSignals) / sizeof(kSignals[0])];

void write_text(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

// Async-signal-safe as far as backtrace goes (the first call, below, loads libgcc beforehand).
void on_crash(int signal, siginfo_t* info, void* context) {
  write_text("kbench: fatal signal in the native core; its stack (addr2line -f -C -e MODULE OFFSET):\n");
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  for (std::size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    if (kSignals[i] != signal) continue;
    const struct sigaction& previous = g_previous[i];
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
      previous.sa_sigaction(signal, info, context);
      return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
      previous.sa_handler(signal);
      return;
    }
  }
  ::signal(signal, SIG_DFL);
  raise(signal);
}

}  // namespace

void install_crash_backtrace() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  void* warm[1];
  (void)backtrace(warm, 1);
  for (std::size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    struct sigaction action {};
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

}  // namespace kbench
