// The agent loop's per-turn figures (report/turn_metrics.hpp) and the feedback sent to the model
// (run/turn_feedback.hpp), on results built by hand.
#include "catch.hpp"
#include "report/turn_metrics.hpp"
#include "run/generated_results.hpp"
#include "run/turn_feedback.hpp"

using Catch::Approx;
using namespace kbench;

namespace {

// A result of `problem`, sample `sample`, turn `turn`; `speedup` vs eager when correct.
JobResult turn_result(const std::string& problem, int sample, int turn, Status status, double speedup = 0) {
  JobResult r;
  r.job.problem_id = problem;
  r.job.candidate = "sample-" + std::to_string(sample) + "-turn-" + std::to_string(turn) + ".py";
  r.job.origin = CandidateOrigin{};
  r.job.origin->sample = sample;
  r.job.origin->turn = turn;
  r.status = status;
  if (status == Status::ok) r.speedups["eager"] = SpeedupEstimate{speedup, std::nullopt, std::nullopt};
  return r;
}

}  // namespace

TEST_CASE("per turn: each conversation counts with its best candidate so far") {
  const std::vector<JobResult> results = {
      // problem a, two samples: s0 fails then is fixed (1.5x), then regresses to a failure;
      // s1 is right at once (0.9x) and gets faster (2.5x) at turn 3.
      turn_result("a", 0, 1, Status::mismatch), turn_result("a", 0, 2, Status::ok, 1.5),
      turn_result("a", 0, 3, Status::compile_error), turn_result("a", 1, 1, Status::ok, 0.9),
      turn_result("a", 1, 2, Status::no_code), turn_result("a", 1, 3, Status::ok, 2.5),
      // problem b, one sample, never correct.
      turn_result("b", 0, 1, Status::runtime_error), turn_result("b", 0, 2, Status::runtime_error),
      turn_result("b", 0, 3, Status::rejected)};
  const auto turns = turn_metrics(results);
  REQUIRE(turns.size() == 3);
  CHECK(turns[0].evaluations == 3);
  CHECK(turns[0].statuses.at("mismatch") == 1);
  // pass@1: mean over problems of the correct share: turn 1 (1/2 + 0) / 2, then (2/2 + 0) / 2.
  CHECK(turns[0].pass_at_1 == Approx(0.25));
  CHECK(turns[1].pass_at_1 == Approx(0.5));
  CHECK(turns[2].pass_at_1 == Approx(0.5));  // s0's failure at turn 3 does not undo turn 2
  // fast_1 vs eager: turn 1 none (0.9x), turn 2 s0 (1.5x) of a, turn 3 both samples of a.
  CHECK(turns[0].fast_p.at("eager").at("1") == Approx(0.0));
  CHECK(turns[1].fast_p.at("eager").at("1") == Approx(0.25));
  CHECK(turns[2].fast_p.at("eager").at("1") == Approx(0.5));
  CHECK(turns[2].fast_p.at("eager").at("2") == Approx(0.25));  // only s1's 2.5x
  CHECK(turns[0].fast_p.at("eager").at("0") == Approx(0.25));  // p = 0: correct
  CHECK(turn_metrics_text(turns).find("turn 2: 3 evaluations (no_code 1, ok 1, runtime_error 1); pass@1 0.500; "
                                      "fast_1 vs eager 0.250") != std::string::npos);
  CHECK(turn_metrics({}).empty());
}

TEST_CASE("feedback: the verdict and evidence of a failure; times of a correct one, left out of the replay key") {
  JobResult failed = turn_result("gemm", 0, 1, Status::mismatch);
  failed.message = "seed trial, seed 1000: output 0: shape [64, 64] expected, got [4096]";
  failed.diagnostics = {{"seed", 1000}, {"trial", "seed"}, {"sandbox", {{"secret_layout", true}}},
                        {"traceback", std::string(20000, 'x') + "ValueError: the end"}};
  const auto f = turn_feedback(failed);
  CHECK(f.text.find("for problem `gemm`: status mismatch. seed trial") != std::string::npos);
  CHECK(f.text.find("\"trial\": \"seed\"") != std::string::npos);
  CHECK(f.text.find("secret_layout") == std::string::npos);  // harness details are not sent
  CHECK(f.text.find("ValueError: the end") != std::string::npos);  // a traceback keeps its end
  CHECK(f.text.size() < 8000);
  CHECK(f.replay_key.find("ValueError") == std::string::npos);  // error output names this run's files
  CHECK(f.replay_key.find("status mismatch. seed trial") != std::string::npos);
  CHECK(f.replay_key.find("Details") == std::string::npos);
  // A mismatch's stderr is the harness's: not sent; a crash's is.
  failed.diagnostics.erase("traceback");
  failed.diagnostics["stderr_tail"] = "warning: harness noise";
  CHECK(turn_feedback(failed).text.find("harness noise") == std::string::npos);
  failed.status = Status::crashed;
  CHECK(turn_feedback(failed).text.find("harness noise") != std::string::npos);

  JobResult ok = turn_result("gemm", 0, 2, Status::ok, 1.25);
  Measurement m;
  m.samples_ms = {2.0, 2.0};
  m.stats.median = 2.0;
  m.mode = "cold";
  ok.timings["candidate"] = m;
  m.stats.median = 2.5;
  ok.timings["eager"] = m;
  const auto g = turn_feedback(ok);
  CHECK(g.text.find("`gemm`: it is correct") != std::string::npos);
  CHECK(g.text.find("Your kernel's time: 2 ms") != std::string::npos);
  CHECK(g.text.find("PyTorch eager: 2.5 ms, so your speedup is 1.25x") != std::string::npos);
  CHECK(g.replay_key.find("ms") == std::string::npos);  // no figures in the cache's view
  CHECK(g.replay_key.find("it is correct") != std::string::npos);

  auto no_code = turn_result("gemm", 0, 3, Status::no_code);
  no_code.job.origin->extraction = "no fenced code block in the reply";
  no_code.job.origin->reply_file = "/runs/a.json.generated/gemm/sample-0-turn-3.reply.json";
  no_code = no_code_result(no_code.job);  // as the agent loop makes it: the message names the file
  REQUIRE(no_code.message.find("/runs/a.json.generated") != std::string::npos);
  const auto none = turn_feedback(no_code);
  CHECK(none.text.find("for problem `gemm` held no code") != std::string::npos);
  CHECK(none.text.find("no fenced code block in the reply") != std::string::npos);
  // Where this run kept the reply is neither told nor keyed: a second run's request hits the cache.
  CHECK(none.text.find("/runs/") == std::string::npos);
  CHECK(none.replay_key == none.text);
}
