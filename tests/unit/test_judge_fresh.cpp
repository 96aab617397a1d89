// Fresh values of a blinded candidate's calls, as the judge sees them (worker/judge.hpp,
// exec/call_reveal.hpp): each call's values come from the controller's seed of an earlier
// reveal; the judge derives the seed, runs the reference on it (here a stand-in function of the
// seed) and compares the opened leaves. Honest calls pass; a cached output of earlier values, a
// pair (reveal, buffer) used twice, a reveal that is not earlier, a missing opening reveal or a
// call without fresh values are refused.
#include <ATen/ATen.h>

#include <set>

#include "catch.hpp"
#include "exec/call_reveal.hpp"
#include "integrity/output_opening.hpp"
#include "worker/judge.hpp"
#include "worker/python_runtime.hpp"

using namespace kbench;

namespace {

// The "reference" on the values of `seed`: 64 leaves of float32 that differ with every seed.
at::Tensor reference_on(long long seed) {
  return at::arange(4096, at::kFloat).add_(double(seed % 100003)).reshape({64, 64});
}

struct Call {
  int value_set = 0;     // the buffer
  int fresh_reveal = 0;  // the reveal it claims its values came from
  at::Tensor output;
};

// A commitment of one call per sample, sample s committed under reveal s + 1 (reveal 0 opens).
Commitment commit(const std::vector<Call>& calls, bool opening = true) {
  Commitment out;
  if (opening) out.reveals.push_back({fresh_start_digest(), 7777});
  for (std::size_t s = 0; s < calls.size(); ++s) {
    CallRecord record{(long long)s, calls[s].value_set, false, -1, calls[s].fresh_reveal};
    CommittedOutput committed = commit_output(calls[s].output);
    const std::string line =
        commitment_line(record.index, record.value_set, record.warmup, {committed.opened}, record.fresh_reveal);
    const SampleReveal reveal{sample_digest({line}), 1000003 * (s + 1)};
    open_output(committed, opening_positions(reveal.seed, 0, 0, committed.tree.leaves(), 1024));
    out.calls.push_back({record, int(out.reveals.size()), 0, {committed.opened}});
    out.reveals.push_back(reveal);
  }
  return out;
}

// The honest output of a call whose values were drawn under `reveal` for `buffer`.
at::Tensor honest(const Commitment& shape, int reveal, int buffer) {
  return reference_on(fresh_call_seed(shape.reveals.at(std::size_t(reveal)).seed, buffer));
}

JobResult judge(const Commitment& commitment) {
  static const bool started = (start_python(), true);  // Trial holds Python handles
  (void)started;
  ReferenceWork work;
  work.fresh_calls = true;
  work.timing_sets.resize(2);
  JobResult provisional;
  provisional.status = Status::ok;
  return judge_commitment(Job{}, work, commitment, provisional, "", nullptr,
                          [](long long seed) { return std::vector<at::Tensor>{reference_on(seed)}; });
}

std::string check_of(const JobResult& r) {
  return r.diagnostics.contains("integrity") ? r.diagnostics["integrity"].value("check", "") : "";
}

// Reveal seeds do not depend on the outputs in commit() (fixed per sample), so the honest
// outputs can be computed from a first commitment's reveals.
Commitment honest_run(int samples) {
  std::vector<Call> calls(std::size_t(samples), {0, 0, at::zeros({64, 64})});
  const Commitment shape = commit(calls);
  for (int s = 0; s < samples; ++s) calls[std::size_t(s)] = {s % 2, s, honest(shape, s, s % 2)};
  return commit(calls);
}

}  // namespace

TEST_CASE("fresh call seeds: a function of the controller's seed and the buffer, in the fresh range") {
  std::set<long long> seen;
  for (std::uint64_t r : {1ULL, 2ULL, 0xffffffffffffffffULL})
    for (int b = 0; b < 4; ++b) {
      const long long seed = fresh_call_seed(r, b);
      CHECK(seed == fresh_call_seed(r, b));
      CHECK(seed >= kFirstFreshSeed);
      CHECK(seed < kFirstFreshSeed + kFreshSeeds);
      seen.insert(seed);
    }
  CHECK(seen.size() == 12);
}

TEST_CASE("honest fresh-valued calls are judged ok, each against the reference on its own seed") {
  const JobResult r = judge(honest_run(4));
  INFO(r.message);
  CHECK(r.status == Status::ok);
  CHECK(r.diagnostics["judged"]["fresh_values"]["reference_calls"] == 4);
}

TEST_CASE("a content cache's copy of an earlier call's output is refused: its values were others") {
  Commitment run = honest_run(3);
  std::vector<Call> calls;
  for (int s = 0; s < 3; ++s) calls.push_back({s % 2, s, honest(run, s, s % 2)});
  calls[2].output = calls[0].output.clone();  // same buffer, a cache hit on the first values
  const JobResult r = judge(commit(calls));
  CHECK(r.status == Status::rejected);
  CHECK(check_of(r) == "timed_call_check");
}

TEST_CASE("fresh values the controller did not send, or sent for another call, are refused") {
  const Commitment run = honest_run(3);
  std::vector<Call> calls;
  for (int s = 0; s < 3; ++s) calls.push_back({s % 2, s, honest(run, s, s % 2)});
  SECTION("one (reveal, buffer) pair for two calls: the second is a repeat of the first's values") {
    calls[2] = {calls[0].value_set, calls[0].fresh_reveal, calls[0].output.clone()};
  }
  SECTION("values drawn under the call's own reveal, i.e. chosen after its roots were fixed") {
    calls[1].fresh_reveal = 2;
  }
  SECTION("no fresh values at all") { calls[1].fresh_reveal = -1; }
  const JobResult r = judge(commit(calls));
  INFO(r.message);
  CHECK(r.status == Status::rejected);
  CHECK(check_of(r) == "commitment");
}

TEST_CASE("calls with fresh values but no opening reveal from the controller are refused") {
  std::vector<Call> calls = {{0, 0, reference_on(1)}};
  const JobResult r = judge(commit(calls, false));
  CHECK(r.status == Status::rejected);
  CHECK(check_of(r) == "commitment");
}
