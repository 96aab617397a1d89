// The Evaluator (lib/service) with real CPU workers (kbench-worker in sandboxed processes) over
// tests/data/suites/faults.yaml: results for honest and hostile candidates alike, idempotent
// request ids, the refusals (unknown problem, bad field, conflict, queue full, draining), lookup,
// listeners, the time split and drain. About 20 worker runs, ~60 s on 2 cores.
#include <atomic>
#include <set>
#include <string>

#include "catch.hpp"
#include "exec/interrupt.hpp"
#include "exec/worker_process.hpp"
#include "model/codec.hpp"
#include "service/evaluator.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {

using test::read_text;

std::string candidate(const std::string& name) { return read_text(test::kDataDir / "candidates" / name); }
std::string hostile(const std::string& name) { return read_text(test::kSourceDir / "tests/hostile" / name); }

EvaluatorConfig faults_config(const std::filesystem::path& work_dir, int workers = 2) {
  EvaluatorConfig config;
  config.suite_file = test::kDataDir / "suites/faults.yaml";
  config.device = "cpu";
  config.workers = workers;
  config.work_dir = work_dir;
  return config;
}

EvaluationRequest request(const std::string& problem, const std::string& source,
                          std::optional<std::string> id = std::nullopt) {
  EvaluationRequest r;
  r.problem_id = problem;
  r.source = source;
  r.request_id = std::move(id);
  return r;
}

EvaluatorRefusal::Reason refusal_of(Evaluator& evaluator, EvaluationRequest r) {
  try {
    evaluator.submit(std::move(r));
  } catch (const EvaluatorRefusal& refusal) {
    return refusal.reason();
  }
  FAIL("submit accepted a request it should refuse");
  return EvaluatorRefusal::Reason::bad_request;
}

}  // namespace

TEST_CASE("the evaluator returns a result for every candidate, honest or hostile, and never throws for one") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  Evaluator evaluator(faults_config(dir.path() / "work"));
  CHECK(evaluator.environment().contains("torch"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {candidate("add_one_ok.py"), "ok"},           {candidate("add_one_wrong_shape.py"), "mismatch"},
      {hostile("segfault.py"), "crashed"},          {hostile("raise_in_forward.py"), "runtime_error"},
      {hostile("syntax_error.py"), "compile_error"}, {hostile("exit_on_import.py"), "compile_error"},
      {hostile("os_exit_in_forward.py"), "crashed"}, {candidate("add_one_forged_frame.py"), "ok"},
  };
  std::atomic<int> heard{0};
  std::vector<Evaluator::Handle> handles;
  for (const auto& [source, expected] : cases)
    handles.push_back(evaluator.submit(request("add_one", source), [&heard](const Evaluation&) { ++heard; }));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Evaluation e = handles[i].get();
    INFO(i << ": " << e.result.message);
    CHECK(to_string(e.result.status) == cases[i].second);
    CHECK(e.result.job.problem_id == "add_one");
    ids.insert(e.request_id);
    // Where the time went: it waited, then its worker ran; the whole is at least the worker.
    CHECK(e.time.queue_wait_s >= 0);
    CHECK(e.time.worker_wall_s > 0);
    CHECK(e.time.total_s >= e.time.worker_wall_s);
    CHECK_FALSE(e.feedback.empty());
    const auto json = evaluation_json(e);
    CHECK(json["status"] == cases[i].second);
    CHECK(json["result"]["status"] == cases[i].second);  // the codec's results entry
    CHECK(json["time"]["worker_wall_s"].get<double>() == Approx(e.time.worker_wall_s));
    const auto status = evaluator.lookup(e.request_id);
    REQUIRE(status);
    CHECK(status->state == RequestState::finished);
    REQUIRE(status->evaluation);
    CHECK(status->evaluation->result.status == e.result.status);
  }
  CHECK(ids.size() == cases.size());  // every request its own id
  const auto correct = handles[0].get();
  CHECK(correct.result.speedups.count("eager") == 1);
  // The worker's own timeline, phase by phase, within its wall time.
  double phases = 0;
  for (const char* phase : {"python_start", "problem_setup", "reference", "candidate_import", "correctness", "timing"}) {
    INFO(phase);
    REQUIRE(correct.time.phases_s.contains(phase));
    CHECK(correct.time.phases_s[phase].get<double>() >= 0);
  }
  for (const auto& [name, seconds] : correct.time.phases_s.items()) phases += seconds.get<double>();
  CHECK(phases <= correct.time.worker_wall_s + 0.01);
  CHECK(phases > 0.5 * correct.time.worker_wall_s);  // most of the worker's time is accounted for
  // A candidate whose source does not compile is decided from it before torch is imported
  // (worker/source_verdict.hpp): no reference, no import, no timing.
  const auto syntax = handles[4].get();
  CHECK(syntax.time.phases_s.contains("source_checks"));
  for (const char* phase : {"reference", "candidate_import", "timing"}) {
    INFO(phase);
    CHECK_FALSE(syntax.time.phases_s.contains(phase));
  }
  CHECK(correct.feedback.find("correct") != std::string::npos);
  evaluator.drain();  // listeners have been called once the session is done
  CHECK(heard == int(cases.size()));
  const auto stats = evaluator.stats();
  CHECK(stats.finished == cases.size());
  CHECK(stats.queued == 0);
  CHECK(stats.running == 0);
  CHECK(stats.by_status.at("ok") == 2);
  CHECK(stats.by_status.at("crashed") == 2);
  CHECK(stats.by_status.at("compile_error") == 2);
  CHECK(stats.time_sums.worker_wall_s > 0);
  CHECK_FALSE(stats.accepting);
  CHECK(refusal_of(evaluator, request("add_one", candidate("add_one_ok.py"))) == EvaluatorRefusal::Reason::draining);
}

TEST_CASE("a request id is evaluated once; reusing it for another candidate is a conflict") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  Evaluator evaluator(faults_config(dir.path() / "work"));
  const auto ok = candidate("add_one_ok.py");
  auto first = evaluator.submit(request("add_one", ok, "turn-1"));
  auto again = evaluator.submit(request("add_one", ok, "turn-1"));
  const auto status = evaluator.lookup("turn-1");
  REQUIRE(status);
  CHECK(status->state != RequestState::finished);
  CHECK(refusal_of(evaluator, request("add_one", candidate("add_one_wrong_shape.py"), "turn-1")) ==
        EvaluatorRefusal::Reason::conflict);
  CHECK(first.get().result.status == Status::ok);
  CHECK(again.get().result.job.candidate_file == first.get().result.job.candidate_file);
  // Finished: still the same answer, and a listener added now hears it at once.
  bool heard = false;
  auto late = evaluator.submit(request("add_one", ok, "turn-1"), [&heard](const Evaluation&) { heard = true; });
  CHECK(heard);
  CHECK(late.get().request_id == "turn-1");
  CHECK(evaluator.stats().finished == 1);  // one worker ran
  CHECK_FALSE(evaluator.lookup("never-sent"));
  // The source is kept content-addressed: one file per distinct text.
  CHECK(first.get().result.job.candidate_file.parent_path() == dir.path() / "work" / "candidates");
  CHECK(read_text(first.get().result.job.candidate_file) == ok);
}

TEST_CASE("the evaluator refuses bad requests with one clear reason each") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  Evaluator evaluator(faults_config(dir.path() / "work", 1));
  try {
    evaluator.submit(request("add_onee", candidate("add_one_ok.py")));
    FAIL("unknown problem accepted");
  } catch (const EvaluatorRefusal& refusal) {
    CHECK(refusal.reason() == EvaluatorRefusal::Reason::unknown_problem);
    CHECK(std::string(refusal.what()).find("did you mean 'add_one'") != std::string::npos);
  }
  auto bad_backend = request("add_one", candidate("add_one_ok.py"));
  bad_backend.backend = "opencl";
  CHECK(refusal_of(evaluator, bad_backend) == EvaluatorRefusal::Reason::bad_request);
  CHECK(refusal_of(evaluator, request("add_one", "")) == EvaluatorRefusal::Reason::bad_request);
  CHECK(refusal_of(evaluator, request("add_one", "x", "no spaces allowed")) == EvaluatorRefusal::Reason::bad_request);
  CHECK(evaluator.stats().finished == 0);
}

TEST_CASE("a full queue refuses with queue_full; what it accepted all finishes, also a timeout") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  auto config = faults_config(dir.path() / "work", 1);
  config.max_queued = 2;
  Evaluator evaluator(config);
  // One slot, so at most one request leaves the queue while these are submitted (each takes
  // seconds): by the fourth submission at the latest, two are waiting.
  std::vector<Evaluator::Handle> accepted;
  accepted.push_back(evaluator.submit(request("add_one_hang", hostile("infinite_loop.py"))));
  bool refused = false;
  for (int i = 0; i < 3 && !refused; ++i) {
    try {
      accepted.push_back(evaluator.submit(request("add_one_after", candidate("add_one_ok.py") + "\n# " + std::to_string(i))));
    } catch (const EvaluatorRefusal& refusal) {
      CHECK(refusal.reason() == EvaluatorRefusal::Reason::queue_full);
      refused = true;
    }
  }
  CHECK(refused);
  CHECK(evaluator.stats().refused_queue_full == 1);
  REQUIRE(accepted.size() >= 2);
  CHECK(accepted[0].get().result.status == Status::timeout);
  for (std::size_t i = 1; i < accepted.size(); ++i) CHECK(accepted[i].get().result.status == Status::ok);
  evaluator.drain();
  CHECK(evaluator.stats().finished == accepted.size());
}
