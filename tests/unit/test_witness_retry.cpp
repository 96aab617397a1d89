// Two windows before a timing witness refusal (exec/witness_retry.hpp): a job whose first window
// was exceeded runs again, and only the second run's verdict counts.
#include <vector>

#include "catch.hpp"
#include "exec/witness_retry.hpp"

using namespace kbench;

namespace {

JobResult window_refused(double wall_s) {
  JobResult r;
  r.status = Status::rejected;
  r.message = "integrity check timing_witness failed: 16 witness calls on fresh inputs took ...";
  r.diagnostics["integrity"] = {{"check", "timing_witness"}};
  r.diagnostics["isolation"] = {{"mode", "blinded"}, {"witness", {{"calls", 16}, {"wall_s", wall_s}, {"exceeded", true}}}};
  r.wall_s = 5;
  r.schedule = ScheduleInfo{0, {}, 100.0, 105.0};
  return r;
}

JobResult passed() {
  JobResult r;
  r.status = Status::ok;
  r.diagnostics["isolation"] = {{"mode", "blinded"}, {"witness", {{"calls", 16}, {"wall_s", 0.05}}}};
  r.wall_s = 4;
  r.schedule = ScheduleInfo{0, {}, 105.0, 109.0};
  return r;
}

}  // namespace

TEST_CASE("only a refusal of the witness's window is worth a second run") {
  CHECK(witness_window_exceeded(window_refused(0.3)));
  CHECK_FALSE(witness_window_exceeded(passed()));
  // The witness's outputs wrong, or its protocol broken: refused on the first run.
  JobResult wrong_outputs = window_refused(0.3);
  wrong_outputs.diagnostics["isolation"]["witness"].erase("exceeded");
  CHECK_FALSE(witness_window_exceeded(wrong_outputs));
  JobResult mismatch = window_refused(0.3);
  mismatch.status = Status::mismatch;
  CHECK_FALSE(witness_window_exceeded(mismatch));
  JobResult in_one_process;
  in_one_process.status = Status::rejected;
  CHECK_FALSE(witness_window_exceeded(in_one_process));
}

TEST_CASE("a first window within the rule runs once") {
  std::vector<int> attempts;
  const JobResult r = with_second_witness_window([&](int attempt) {
    attempts.push_back(attempt);
    return passed();
  });
  CHECK(attempts == std::vector<int>{0});
  CHECK(r.status == Status::ok);
  CHECK_FALSE(r.diagnostics.contains("witness_first_window"));
}

TEST_CASE("an honest window stalled once: the second run's verdict, the first window kept") {
  std::vector<int> attempts;
  const JobResult r = with_second_witness_window([&](int attempt) {
    attempts.push_back(attempt);
    return attempt == 0 ? window_refused(0.3163) : passed();
  });
  CHECK(attempts == std::vector<int>{0, 1});
  CHECK(r.status == Status::ok);
  CHECK(r.message.empty());
  REQUIRE(r.diagnostics.contains("witness_first_window"));
  CHECK(r.diagnostics["witness_first_window"]["wall_s"] == 0.3163);
  CHECK(r.diagnostics["witness_first_window"]["message"].get<std::string>().find("timing_witness") != std::string::npos);
  CHECK(r.wall_s == 9);  // both runs' workers
  REQUIRE(r.schedule);
  CHECK(r.schedule->start_unix_s == 100.0);
  CHECK(r.schedule->end_unix_s == 109.0);
}

TEST_CASE("a forger exceeds both windows: refused, and the message says it ran twice") {
  std::vector<int> attempts;
  const JobResult r = with_second_witness_window([&](int attempt) {
    attempts.push_back(attempt);
    return window_refused(attempt == 0 ? 0.63 : 0.61);
  });
  CHECK(attempts == std::vector<int>{0, 1});  // never a third
  CHECK(r.status == Status::rejected);
  CHECK(r.diagnostics["integrity"]["check"] == "timing_witness");
  CHECK(r.message.find("second run, on fresh seeds; the first run's 16 calls took 0.63 s") != std::string::npos);
  CHECK(r.diagnostics["witness_first_window"]["wall_s"] == 0.63);
}
