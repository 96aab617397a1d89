#pragma once
// On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT, writes the native stack (module + offset per
// frame, for addr2line) to stderr, then lets the previous handler (Python's faulthandler, or
// the default action) run. For the in-process Evaluator: a crash in the C++ core of a trainer's
// process otherwise leaves only the Python line that called into it.
namespace kbench {

void install_crash_backtrace();

}  // namespace kbench
