#include "core/crash_backtrace.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>

namespace kbench {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[sizeof(kSignals) / sizeof(kSignals[0])];

void write_text(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

// Async-signal-safe as far as backtrace goes (the first call, below, loads libgcc beforehand).
void on_crash(int signal, siginfo_t* info, void* context) {
  write_text("kbench: fatal signal in the native core (addr2line -f -C -e MODULE OFFSET for each line)\n");
#if defined(__x86_64__)
  // A call through a bad pointer leaves no frame to unwind from: the faulting pc, then every
  // word near the stack pointer that points into a loaded module (return addresses among them).
  const auto* registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  void* near[65];
  int found = 0;
  near[found++] = reinterpret_cast<void*>(registers[REG_RIP]);
  auto* const* stack = reinterpret_cast<void* const*>(registers[REG_RSP]);
  for (int i = 0; i < 256 && found < 65; ++i) {
    Dl_info where{};
    if (dladdr(stack[i], &where) && where.dli_fname) near[found++] = stack[i];
  }
  write_text("kbench: pc, then code addresses on the stack:\n");
  backtrace_symbols_fd(near, found, STDERR_FILENO);
#endif
  write_text("kbench: the unwound stack:\n");
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
