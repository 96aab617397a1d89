#pragma once
// Entry points of the internal `kbench worker` subcommand. Both read the per-job key from
// `key_fd` (and close it) before any Python runs, write exactly one frame authenticated with it
// to `result_fd`, and then end the process without Python finalisation (which can hang or crash
// after arbitrary candidate code); they do not return.
#include <filesystem>
#include <string>

#include "device/device.hpp"

namespace kbench {

// How a job's units are placed (worker/evaluation.hpp, docs/threat-model.md): both in this
// process (the default); only the reference unit (its ReferenceWork written to `reference_out`
// and, blinded, to `reference_out` + ".blinded"; the frame carries their sizes and SHA-256s);
// only the candidate unit against `reference_in`, whose SHA-256 must be `reference_sha256` (the
// digest the trusted side reported), its commitment to `commit_out` when the work is blinded;
// or the judge (`judge`: no Python) of `commit_in` against the full `reference_in`, given the
// candidate unit's message `provisional`. `native_reference_out`: both units here, unless static
// analysis finds that the candidate may run native code (native_code_reason): then only the
// reference unit, its work written there as with `reference_out` (baselines deferred to the
// candidate unit), the frame saying why (`placement.native_code`); the controller runs the
// candidate unit blinded in another process (lib/exec/blinded_job.hpp).
struct UnitPlacement {
  std::filesystem::path native_reference_out;
  std::filesystem::path reference_out;
  std::filesystem::path reference_in;
  std::string reference_sha256;
  std::filesystem::path commit_out;
  bool judge = false;
  std::filesystem::path commit_in;
  std::string commit_sha256;
  std::filesystem::path provisional;
  std::string witness_sha256;  // with --judge: the digest the controller read at the window's end
  std::filesystem::path reveals;  // with --judge: the controller's record of reveals (exec/call_reveal.hpp)
  int witness_fd = -1;         // the timing witness's seeds (worker/phase_signal.hpp)
  // Kept reference work (model/kept_reference.hpp): `reference_baselines`, the trusted
  // measurement of the baselines alone (measure_reference_baselines; nothing of the candidate
  // is read); `short_baselines`, the controller keeps the baselines' timings and this job takes
  // only a drift sample of the first (ReferenceWork::short_baselines).
  bool reference_baselines = false;
  bool short_baselines = false;
  // Only the source's verdict (source_verdict.hpp): the decided result, or the message
  // {"source_undecided": true}. The controller asks before a kept record is measured, so a
  // candidate its source refuses does not pay for the baselines (exec/kept_reference_job.hpp).
  bool source_verdict_only = false;
};

[[noreturn]] void worker_evaluate(const std::filesystem::path& job_file, int result_fd,
                                  int key_fd, const UnitPlacement& placement = {});
// `kbench validate`: the problem of `job_file` checked on its device (worker/problem_validation.hpp).
[[noreturn]] void worker_judge(const std::filesystem::path& job_file, int result_fd, int key_fd,
                               const UnitPlacement& placement);
[[noreturn]] void worker_validate(const std::filesystem::path& job_file, bool inductor, int result_fd,
                                  int key_fd);
[[noreturn]] void worker_probe(const Device& device, int result_fd, int key_fd);

}  // namespace kbench
