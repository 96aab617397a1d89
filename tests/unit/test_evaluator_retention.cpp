// The Evaluator's retention of finished results (EvaluatorConfig::keep_finished and
// keep_finished_s; lib/service/result_retention.hpp) with real CPU workers over
// tests/data/suites/faults.yaml. Most requests are model replies without code (status no_code,
// no worker), so the cap is crossed in milliseconds while one real evaluation is still queued or
// running: it must never be evicted. Then an evicted id looks up as evicted (why, attempts), is
// evaluated afresh as attempt 2 for its own candidate and is a conflict for another, and results
// not read for keep_finished_s age out. One real evaluation and the probe: ~10-15 s on 2 cores.
#include <chrono>
#include <string>
#include <thread>

#include "catch.hpp"
#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "exec/worker_process.hpp"
#include "service/evaluator.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;
using namespace std::chrono_literals;

namespace {

EvaluationRequest request(const std::string& source, const std::string& id, bool is_reply) {
  EvaluationRequest r;
  r.problem_id = "add_one";
  r.source = source;
  r.request_id = id;
  r.is_reply = is_reply;
  return r;
}

// A model's reply with no code in it: no_code at once, no worker.
EvaluationRequest prose(const std::string& id, const std::string& text = "I cannot write this kernel.") {
  return request(text, id, true);
}

RequestState state_of(const Evaluator& evaluator, const std::string& id) {
  const auto status = evaluator.lookup(id);
  REQUIRE(status);
  return status->state;
}

}  // namespace

TEST_CASE("the evaluator keeps at most keep_finished results, least recently used first; never queued or running ones") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  EvaluatorConfig config;
  config.suite_file = test::kDataDir / "suites/faults.yaml";
  config.device = "cpu";
  config.workers = 1;
  config.work_dir = dir.path() / "work";
  config.keep_finished = 2;
  config.keep_finished_s = 4.0;
  Evaluator evaluator(config);

  // A real evaluation, queued then running while the cap is crossed below.
  auto real = evaluator.submit(request(test::read_text(test::kDataDir / "candidates/add_one_ok.py"), "real", false));
  CHECK(evaluator.submit(prose("a")).get().result.status == Status::no_code);
  CHECK(evaluator.submit(prose("b")).get().attempt == 1);
  REQUIRE(state_of(evaluator, "a") == RequestState::finished);  // a read: a is now the most recent
  evaluator.submit(prose("c")).get();                            // evicts b, not a
  CHECK(state_of(evaluator, "a") == RequestState::finished);
  const auto b = evaluator.lookup("b");
  REQUIRE(b);
  CHECK(b->state == RequestState::evicted);
  CHECK_FALSE(b->evaluation);
  REQUIRE(b->evicted);
  CHECK(b->evicted->reason == "count");
  CHECK(b->evicted->attempts == 1);
  CHECK(b->problem_id == "add_one");
  evaluator.submit(prose("d")).get();  // evicts c: a was read again (the CHECK above) after c finished
  CHECK(state_of(evaluator, "c") == RequestState::evicted);
  CHECK(state_of(evaluator, "a") == RequestState::finished);
  CHECK(state_of(evaluator, "real") != RequestState::evicted);
  {
    const EvaluatorStats stats = evaluator.stats();
    CHECK(stats.kept == 2);
    CHECK(stats.evicted_by_count == 2);
    CHECK(stats.keep_finished == 2);
    CHECK(stats.keep_finished_s == 4.0);
  }
  CHECK_FALSE(evaluator.lookup("never-sent"));

  // An evicted id with its own candidate: evaluated afresh, attempt 2. Another candidate: conflict.
  const Evaluation again = evaluator.submit(prose("b")).get();
  CHECK(again.attempt == 2);
  CHECK(again.result.status == Status::no_code);
  CHECK(state_of(evaluator, "b") == RequestState::finished);
  bool conflict = false;
  try {
    evaluator.submit(prose("c", "Another reply, another candidate."));
  } catch (const EvaluatorRefusal& refusal) {
    conflict = refusal.reason() == EvaluatorRefusal::Reason::conflict;
  }
  CHECK(conflict);

  // The real one was never evicted while it waited and ran; finished, it is kept (the newest).
  CHECK(real.get().result.status == Status::ok);
  const auto finished = evaluator.lookup("real");
  REQUIRE(finished);
  CHECK(finished->state == RequestState::finished);
  REQUIRE(finished->evaluation);
  CHECK(finished->evaluation->result.status == Status::ok);

  // Not read for keep_finished_s: evicted by age at the next touch (here stats()).
  std::this_thread::sleep_for(4500ms);
  const EvaluatorStats aged = evaluator.stats();
  CHECK(aged.kept == 0);
  CHECK(aged.evicted_by_age >= 1);
  const auto old = evaluator.lookup("real");
  REQUIRE(old);
  CHECK(old->state == RequestState::evicted);
  CHECK(old->evicted->reason == "age");
}

TEST_CASE("bad retention limits are refused before any work") {
  test::TempDir dir;
  EvaluatorConfig config;
  config.suite_file = test::kDataDir / "suites/faults.yaml";
  config.device = "cpu";
  config.work_dir = dir.path() / "work";
  config.keep_finished = 0;
  CHECK_THROWS_AS(Evaluator(config), InputError);
  config.keep_finished = 1;
  config.keep_finished_s = -1.0;
  CHECK_THROWS_AS(Evaluator(config), InputError);
}
