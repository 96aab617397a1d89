#pragma once
// Tells the controller that the compile phase is over (the first candidate call succeeded, which
// is when Triton JIT-compiles), so its watchdog switches from compile_timeout_s to run_timeout_s.
// One "KBENCH-PHASE/1 run" line on the result channel, before the result frame.

#include <string>

namespace kbench {

// Set by the worker entry point before any candidate code runs.
void set_phase_channel(int result_fd);
// Writes the line the first time; later calls do nothing.
void announce_run_phase();
// Extension builds (docs/extensions.md): "build", "build-end", "built <key> <name> <sha256>",
// "import". Anything result_channel.hpp does not know is refused (std::invalid_argument).
void announce_phase(const std::string& phase);

}  // namespace kbench
