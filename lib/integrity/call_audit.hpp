#pragma once
// Every warm-up and timed call accountable (docs/integrity.md, `timed_call_check`). After each
// sample, outside the timed interval, every call's outputs are compared on random elements
// (integrity/sampled_comparison.hpp) with the reference's outputs for the values that call was
// given, then poisoned, so a buffer the candidate keeps and returns again reads NaN next time.
// With fresh values (worker/fresh_inputs.hpp) the expected outputs of a call are computed only
// after its output was sampled (`take`, then `compare_taken`). Without them, the timing sets'
// expected outputs were computed before the candidate's import and live in pageable host memory
// only: no kernel of the candidate's CUDA context can reach them (pinned memory could).
// Baselines get the same work after every sample, which keeps A/A comparisons symmetric and
// overwrites their outputs (correct values for the very inputs the candidate gets next); a
// baseline's mismatch is only a note.
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "integrity/output_opening.hpp"
#include "integrity/sampled_comparison.hpp"
#include "correctness/trivial_output.hpp"

namespace kbench {

// R: elements checked per output per call. A call wrong on a fraction g of its elements escapes
// with (1 - g)^1024: 7.5e-4 at g = 0.7%, 3.4e-5 at g = 1%, 1.5e-23 at g = 5%.
constexpr int64_t kCheckedElementsPerCall = 1024;

struct CallAuditSettings {
  bool compare = true;  // timed_call_check: outputs compared (the judged variant's mismatch rejects)
  bool rotate = true;   // timed_call_check: value sets moved between input buffers (timing_session)
  bool poison = true;   // stale_memory or timed_call_check: outputs overwritten after their check
  int64_t samples = kCheckedElementsPerCall;
  CallTolerances tolerance;  // per output (correctness/trivial_output.hpp)
  std::string judged = "candidate";  // the variant whose mismatch is a rejection
  // Blinded (the expected values are not in this process): the judged variant's sampled values
  // are committed for a trusted process to judge (worker/judge.hpp), nothing is compared here.
  bool commit = false;
};

struct CallRecord {
  long long index = 0;  // the variant's calls in this measurement, warm-up included, from 0
  int value_set = 0;    // which timing input set's values the call's buffers held (fresh: which buffer)
  bool warmup = false;
  long long fresh_seed = -1;  // fresh values (worker/fresh_inputs.hpp): the seed they were built from
  // Blinded: the reveal whose controller seed `fresh_seed` was derived from (exec/call_reveal.hpp).
  int fresh_reveal = -1;
};

// "candidate timed call 12 (input set 1)", "... (fresh values, seed 1234)": how a rejection
// names the call.
std::string describe_call(const std::string& variant, const CallRecord& call);

// One judged call, committed instead of compared (CallAuditSettings::commit): its outputs'
// Merkle roots, announced with its sample's before the leaves to open were drawn, and the
// opened leaves (integrity/output_opening.hpp).
struct SampledCall {
  CallRecord call;
  int reveal = 0;              // its sample's reveal, counted from 0
  int place_in_sample = 0;     // its place among that sample's committed calls
  std::vector<OpenedOutput> outputs;
};

// One sample's reveal as the candidate's process saw it: the digest it announced and the seed
// that came back (from the controller; drawn here only when no controller asked for reveals).
struct SampleReveal {
  std::string digest;
  std::uint64_t seed = 0;
  bool witness = false;  // a group of timing witness calls (exec/call_reveal.hpp)
};

class CallAudit {
 public:
  // `expected[v]`: the reference's outputs (flattened, on the host) for timing input set v.
  CallAudit(std::vector<std::vector<at::Tensor>> expected, std::string structure, CallAuditSettings settings);

  [[nodiscard]] const CallAuditSettings& settings() const { return settings_; }
  [[nodiscard]] int value_sets() const { return int(expected_.size()); }
  // The value set a buffer holds next: dealt from a deck of every set, shuffled with the OS's
  // entropy whenever it runs out, so any `value_sets()` draws in a row cover every set.
  int draw_value_set();

  // One call's output: checked (a Verdict `rejected` for the judged variant), then poisoned,
  // except memory it shares with `keep` (the variant's input buffers, the model's weights).
  void audit(const std::string& variant, const CallRecord& call, const pybind11::object& output,
             const std::vector<at::Tensor>& keep);
  // Fresh values (worker/fresh_inputs.hpp), in two steps so that nothing expected exists while
  // the candidate's output may still change: `take` checks the output's structure, dtypes and
  // shapes, copies its sampled elements to the host and poisons it (as `audit`); the device
  // must be synchronised before. `compare_taken` then judges them against `reference()`, the
  // reference's outputs for that call's values, computed by the caller only now.
  struct Taken {
    CallRecord call;
    std::vector<TakenSample> outputs;
  };
  Taken take(const std::string& variant, const CallRecord& call, const pybind11::object& output,
             const std::vector<at::Tensor>& keep);
  void compare_taken(const std::string& variant, const Taken& taken,
                     const std::function<std::vector<at::Tensor>()>& reference);
  // Seconds spent on the audit's behalf elsewhere (fresh values built, reference calls).
  void add_seconds(double seconds) { seconds_ += seconds; }
  void note_fresh(const nlohmann::json& note) { notes_["fresh_inputs"] = note; }

  // After every sample's audits (commit mode): the digest of the sample's committed roots goes
  // out, the seed comes back, the revealed leaves are opened. Throws a `commitment` rejection
  // when the controller's channel fails.
  void end_sample();
  // Commit mode with fresh values (exec/call_reveal.hpp): the reveal whose seed the next
  // sample's values come from, the last one the controller answered; before the first sample,
  // reveal 0 is asked for under fresh_start_digest(). Throws as end_sample.
  int fresh_reveal();
  [[nodiscard]] std::uint64_t reveal_seed(int reveal) const { return reveals_.at(std::size_t(reveal)).seed; }

  [[nodiscard]] double seconds() const { return seconds_; }
  // Calls checked, elements per call, seconds, per-call cost, notes (integrity_notes).
  [[nodiscard]] nlohmann::json summary() const;
  void skip_comparison(const std::string& why);
  // The calls committed so far (commit mode) and their samples' reveals, handed over once.
  std::vector<SampledCall> take_commitments() { return std::move(committed_); }
  std::vector<SampleReveal> take_reveals() { return std::move(reveals_); }

 private:
  void check(const std::string& variant, const CallRecord& call, const pybind11::object& output,
             std::vector<at::Tensor>& tensors);
  void poison_outputs(const pybind11::object& output, std::vector<at::Tensor>& tensors,
                      const std::vector<at::Tensor>& keep) const;
  // A failed check: a rejection for the judged variant, a note for a baseline.
  void fail(const std::string& variant, const CallRecord& call, const std::string& what, nlohmann::json evidence);
  // The controller's seed for `digest` (this process's own when no controller asked for reveals).
  std::uint64_t request_seed(const std::string& digest);

  std::vector<std::vector<at::Tensor>> expected_;
  std::string structure_;
  CallAuditSettings settings_;
  std::vector<int> deck_;
  std::vector<SampledCall> committed_;
  std::vector<std::pair<CallRecord, std::vector<CommittedOutput>>> pending_;  // this sample's, unrevealed
  std::vector<SampleReveal> reveals_;
  std::map<std::string, long long> calls_checked_;  // by variant
  long long calls_seen_ = 0;
  double seconds_ = 0;
  nlohmann::json notes_ = nlohmann::json::object();
};

}  // namespace kbench
