#pragma once
// Tells the controller that the compile phase is over (the first candidate call succeeded, which
// is when Triton JIT-compiles), so its watchdog switches from compile_timeout_s to run_timeout_s.
// One "KBENCH-PHASE/1 run" line on the result channel, before the result frame.

#include <cstdint>
#include <optional>
#include <string>

namespace kbench {

// Set by the worker entry point before any candidate code runs.
void set_phase_channel(int result_fd);
// Writes the line the first time; later calls do nothing.
void announce_run_phase();
// Extension builds (docs/extensions.md): "build", "build-end", "built <key> <name> <sha256>",
// "import". Anything result_channel.hpp does not know is refused (std::invalid_argument).
void announce_phase(const std::string& phase);

// The timing witness (exec/timing_witness.hpp): fd 5, on which the controller sends the witness
// seeds once asked. Set by the worker entry point (close-on-exec, closed in forked children).
void set_witness_channel(int witness_fd);
// Announces `witness-ready` and blocks for the controller's one line of seeds; nullopt when the
// controller sends none (the channel is at EOF).
std::optional<std::string> request_witness_seeds();
// The timing witness's end (worker/witness_groups.hpp): announces `witness-end <digest_hex>`, which
// stops the controller's clock, and blocks for the seed of the last group's leaves. nullopt
// without a controller, as request_reveal; throws std::runtime_error when the channel is closed.
std::optional<std::uint64_t> close_witness_window(const std::string& digest_hex);
// Commit, then reveal (exec/call_reveal.hpp): announces `reveal <digest_hex>` and blocks for the
// controller's seed. nullopt when no controller gave this worker fd 5 (a worker run by hand or
// by a test): the caller draws its own. Throws std::runtime_error when the channel is closed.
std::optional<std::uint64_t> request_reveal(const std::string& digest_hex);

}  // namespace kbench
