// The timing witness streamed (worker/witness_groups.hpp, worker/judge.hpp): the candidate's
// side commits its witness calls in groups, each group's leaves drawn by a reveal that a
// controller (here a thread reading the phase lines, as exec/worker_process.cpp does) answers
// after the group's roots were announced; the judge checks the groups against the record, the
// digest that closed the window, and the opened leaves against the reference on each seed (a
// stand-in function of the seed). Honest calls pass; a group revealed outside the window,
// a call on another seed or missing, wrong values, a broken opening or another announced
// digest are refused.
#include <ATen/ATen.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "exec/call_reveal.hpp"
#include "exec/result_channel.hpp"
#include "worker/judge.hpp"
#include "worker/phase_signal.hpp"
#include "worker/python_runtime.hpp"
#include "worker/witness_groups.hpp"

using namespace kbench;

namespace {

// The reference on the inputs of witness seed `seed`: 4096 leaves of float32 (1024 are opened).
at::Tensor reference_on(long long seed) {
  return at::sin(at::arange(64 * 4096, at::kFloat).mul_(0.001 * double(seed % 1009 + 1)));
}

const std::vector<int> kSeeds = {1000001, 1000002, 1000003, 1000004, 1000005, 1000006, 1000007};

// A controller's side of fd 5: every `reveal` and `witness-end` line announced on the phase
// channel is answered with a seed of its own, recorded, as the worker process loop records them.
struct FakeController {
  int phase[2]{};
  int answer[2]{};
  std::vector<CallReveal> record;
  std::thread reader;

  FakeController() {
    REQUIRE(pipe(phase) == 0);
    REQUIRE(pipe(answer) == 0);
    set_phase_channel(phase[1]);
    set_witness_channel(answer[0]);
    reader = std::thread([this] {
      std::string buffer;
      char chunk[4096];
      for (ssize_t n; (n = read(phase[0], chunk, sizeof(chunk))) > 0;) {
        buffer.append(chunk, std::size_t(n));
        for (std::size_t end; (end = buffer.find('\n')) != std::string::npos; buffer.erase(0, end + 1)) {
          const std::string line = buffer.substr(0, end);
          // A group's reveal, or the window's end answered with the last group's seed.
          std::size_t at = line.find(kRevealPrefix), length = kRevealPrefix.size();
          if (at == std::string::npos) at = line.find(kWitnessEndPrefix), length = kWitnessEndPrefix.size();
          if (at == std::string::npos) continue;
          record.push_back({line.substr(at + length), draw_reveal_seed(), true});
          (void)write_all(answer[1], std::to_string(record.back().seed) + "\n");
        }
      }
    });
  }
  // The worker is done: the reader sees the channel's end, and the record is complete.
  std::vector<CallReveal> finish() {
    set_phase_channel(-1);
    set_witness_channel(-1);
    if (phase[1] >= 0) close(phase[1]);
    phase[1] = -1;
    if (reader.joinable()) reader.join();
    return record;
  }
  ~FakeController() {
    finish();
    for (int fd : {phase[0], answer[0], answer[1]}) close(fd);
  }
};

struct Streamed {
  Commitment commitment;
  std::string announced;  // witness-end's digest
  std::vector<CallReveal> record;
  std::size_t groups = 0;
};

// The witness run as the candidate worker runs it: outputs(k) for call k, three outputs' copies
// to a group (with their trees, four would pass the budget).
Streamed stream(const std::function<at::Tensor(std::size_t)>& outputs) {
  Streamed out;
  FakeController controller;
  WitnessGroups groups(4 * reference_on(0).nbytes());
  for (std::size_t k = 0; k < kSeeds.size(); ++k) groups.add((long long)k, kSeeds[k], {outputs(k)});
  groups.finish();
  out.groups = groups.groups();
  out.commitment.witness = groups.take_calls();
  out.commitment.reveals = groups.take_reveals();
  out.record = controller.finish();
  if (!out.record.empty()) out.announced = out.record.back().digest;  // the window's end
  return out;
}

JobResult judge(const Streamed& s, const std::vector<CallReveal>& record, const std::string& announced) {
  static const bool started = (start_python(), true);  // Trial holds Python handles
  (void)started;
  ReferenceWork work;
  work.witness_seeds = kSeeds;
  work.witness_count = kSeeds.size();
  JobResult provisional;
  provisional.status = Status::ok;
  return judge_commitment(Job{}, work, s.commitment, provisional, announced, &record, {},
                          [](long long seed) { return std::vector<at::Tensor>{reference_on(seed)}; });
}

std::string check_of(const JobResult& r) {
  return r.diagnostics.contains("integrity") ? r.diagnostics["integrity"].value("check", "") : "";
}

}  // namespace

TEST_CASE("honest witness calls, streamed in groups, are judged ok against the reference on each seed") {
  const Streamed s = stream([](std::size_t k) { return reference_on(kSeeds[k]); });
  // Three outputs per group: 3 + 3 revealed inside the window, the last call by its end.
  CHECK(s.groups == 3);
  REQUIRE(s.record.size() == 3);
  REQUIRE(s.commitment.reveals.size() == 3);
  for (std::size_t g = 0; g < 3; ++g) {
    CHECK(s.commitment.reveals[g].witness);
    CHECK(s.commitment.reveals[g].digest == s.record[g].digest);
    CHECK(s.commitment.reveals[g].seed == s.record[g].seed);
  }
  CHECK(s.commitment.witness.size() == kSeeds.size());
  CHECK(s.commitment.witness.back().reveal == 2);
  CHECK(s.commitment.witness.back().place_in_sample == 0);
  // 1024 of 4096 leaves opened per call, not the whole output.
  CHECK(s.commitment.witness.front().outputs.front().positions.numel() == 1024);
  CHECK(s.announced == s.commitment.reveals.back().digest);
  CHECK(s.announced != s.record[1].digest);
  const JobResult r = judge(s, s.record, s.announced);
  CHECK(r.status == Status::ok);
  CHECK(r.message == "");
  // Encoded and decoded as the judge reads it from the candidate worker's file.
  const Commitment again = decode_commitment(encode_commitment(s.commitment));
  REQUIRE(again.witness.size() == kSeeds.size());
  CHECK(again.reveals.back().witness);
  Streamed copy = s;
  copy.commitment = again;
  CHECK(judge(copy, s.record, s.announced).status == Status::ok);
}

TEST_CASE("a witness call wrong on its seed's inputs is a mismatch") {
  const Streamed s = stream([](std::size_t k) {
    // Call 4 returns the output of another seed (a cache of an earlier call's work).
    return reference_on(kSeeds[k == 4 ? 0 : k]);
  });
  const JobResult r = judge(s, s.record, s.announced);
  CHECK(r.status == Status::mismatch);
  CHECK(r.message.find("timing witness call 4") != std::string::npos);
}

TEST_CASE("witness groups that do not match the controller's record of its window are refused") {
  const Streamed s = stream([](std::size_t k) { return reference_on(kSeeds[k]); });
  SECTION("a group revealed outside the window") {
    std::vector<CallReveal> late = s.record;
    late[1].witness = false;
    const JobResult r = judge(s, late, s.announced);
    CHECK(r.status == Status::rejected);
    CHECK((check_of(r) == "commitment" || check_of(r) == "timing_witness"));
  }
  SECTION("another digest announced as the window closed") {
    const JobResult r = judge(s, s.record, std::string(64, '0'));
    CHECK(r.status == Status::rejected);
    CHECK(check_of(r) == "timing_witness");
  }
  SECTION("a group's seed other than the controller's: other leaves were to be opened") {
    std::vector<CallReveal> other = s.record;
    other[GENERATE(1, 2)].seed ^= 1;  // an in-window group's, the last group's
    const JobResult r = judge(s, other, s.announced);
    CHECK(r.status == Status::rejected);
    CHECK(check_of(r) == "timing_witness");
  }
  SECTION("calls on seeds out of order, or one missing") {
    Streamed changed = s;
    if (GENERATE(0, 1) == 0)
      std::swap(changed.commitment.witness[0].call.fresh_seed, changed.commitment.witness[1].call.fresh_seed);
    else
      changed.commitment.witness.pop_back();
    const JobResult r = judge(changed, s.record, s.announced);
    CHECK(r.status == Status::rejected);
    CHECK(check_of(r) == "timing_witness");
  }
  SECTION("an opened leaf changed after the reveal") {
    Streamed changed = s;
    changed.commitment.witness[2].outputs[0].leaves = changed.commitment.witness[2].outputs[0].leaves.clone();
    changed.commitment.witness[2].outputs[0].leaves[0] += 1;
    const JobResult r = judge(changed, s.record, s.announced);
    CHECK(r.status == Status::rejected);
    CHECK(check_of(r) == "timing_witness");
  }
}
