// `kbench serve`'s parts that need no worker: the token rule, request bodies, the metrics text.
// The routes themselves run end to end in tests/e2e/test_serve_http.cpp.
#include <regex>
#include <set>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "serve/http_auth.hpp"
#include "serve/http_request_body.hpp"
#include "serve/serve_metrics.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

std::string body_error(const std::string& body) {
  try {
    evaluate_call_from_body(body, false);
  } catch (const BadRequestBody& e) {
    return e.what();
  }
  return "";
}

std::string batch_error(const std::string& body) {
  try {
    batch_call_from_body(body, false);
  } catch (const BadRequestBody& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("only loopback addresses count as loopback") {
  for (const char* host : {"127.0.0.1", "127.3.4.5", "::1", "localhost"}) CHECK(is_loopback_host(host));
  for (const char* host : {"0.0.0.0", "::", "10.0.0.7", "192.168.1.2", "example.com", "128.0.0.1", "", "::ffff:10.0.0.1"})
    CHECK_FALSE(is_loopback_host(host));
}

TEST_CASE("a public bind needs a token, the loopback does not") {
  CHECK_NOTHROW(require_token_for_bind("127.0.0.1", std::nullopt));
  CHECK_NOTHROW(require_token_for_bind("0.0.0.0", std::string(32, 'a')));
  try {
    require_token_for_bind("0.0.0.0", std::nullopt);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    CHECK(std::string(e.what()).find("--token-file") != std::string::npos);
  }
}

TEST_CASE("token files: first line trimmed; short, blank or missing refused") {
  test::TempDir dir;
  CHECK(read_token_file(dir.write("ok", "  0123456789abcdef0123  \nignored\n")) == "0123456789abcdef0123");
  CHECK_THROWS_AS(read_token_file(dir.write("short", "abc\n")), InputError);
  CHECK_THROWS_AS(read_token_file(dir.write("blank", "0123456789 abcdef\n")), InputError);
  CHECK_THROWS_AS(read_token_file(dir.write("empty", "")), InputError);
  CHECK_THROWS_AS(read_token_file(dir.path() / "missing"), InputError);
}

TEST_CASE("bearer tokens must match exactly") {
  const std::string token = "0123456789abcdef";
  CHECK(bearer_token_matches("Bearer 0123456789abcdef", token));
  CHECK(bearer_token_matches("bearer 0123456789abcdef", token));
  CHECK_FALSE(bearer_token_matches("Bearer 0123456789abcdeF", token));
  CHECK_FALSE(bearer_token_matches("Bearer 0123456789abcde", token));
  CHECK_FALSE(bearer_token_matches("Basic 0123456789abcdef", token));
  CHECK_FALSE(bearer_token_matches("", token));
  CHECK_FALSE(bearer_token_matches("0123456789abcdef", token));
}

TEST_CASE("an evaluate body becomes a request") {
  const auto call = evaluate_call_from_body(
      R"({"problem_id": "add_one", "source": "x = 1\n", "backend": "triton", "request_id": "a-1", "session_id": "s:1"})",
      false);
  CHECK(call.request.problem_id == "add_one");
  CHECK(call.request.source == "x = 1\n");
  CHECK(call.request.backend == "triton");
  CHECK(*call.request.request_id == "a-1");
  CHECK(*call.request.session_id == "s:1");
  CHECK_FALSE(call.wait);
  CHECK(evaluate_call_from_body(R"({"problem_id": "p", "source": "s", "wait": true})", false).wait);
  CHECK(evaluate_call_from_body(R"({"problem_id": "p", "source": "s"})", true).wait);
}

TEST_CASE("requests without an id get a fresh valid one") {
  const auto a = evaluate_call_from_body(R"({"problem_id": "p", "source": "s"})", false);
  const auto b = evaluate_call_from_body(R"({"problem_id": "p", "source": "s"})", false);
  REQUIRE(a.request.request_id);
  // The Evaluator's id alphabet, so it accepts the server's own ids.
  CHECK(std::regex_match(*a.request.request_id, std::regex("h-[0-9a-f]{24}")));
  CHECK(*a.request.request_id != *b.request.request_id);
  CHECK(a.request.backend == "auto");
}

TEST_CASE("bad evaluate bodies get one error naming the field") {
  CHECK(body_error("").find("empty") != std::string::npos);
  CHECK(body_error("{not json").find("body") != std::string::npos);
  CHECK(body_error("[1, 2]").find("object") != std::string::npos);
  CHECK(body_error(R"({"source": "s"})").find("problem_id") != std::string::npos);
  CHECK(body_error(R"({"problem_id": "p"})").find("source") != std::string::npos);
  CHECK(body_error(R"({"problem_id": 3, "source": "s"})").find("problem_id") != std::string::npos);
  const std::string typo = body_error(R"({"problem_id": "p", "source": "s", "requestid": "x"})");
  CHECK(typo.find("requestid") != std::string::npos);
  CHECK(typo.find("did you mean 'request_id'") != std::string::npos);
  CHECK(body_error(R"({"problem_id": "p", "source": "s", "backend": 1})").find("backend") != std::string::npos);
  CHECK(body_error(R"({"problem_id": "p", "source": "s", "request_id": 7})").find("request_id") != std::string::npos);
  CHECK(body_error(R"({"problem_id": "p", "source": "s", "session_id": []})").find("session_id") != std::string::npos);
  CHECK(body_error(R"({"problem_id": "p", "source": "s", "wait": "yes"})").find("wait") != std::string::npos);
}

TEST_CASE("batch bodies") {
  const auto call = batch_call_from_body(
      R"({"requests": [{"problem_id": "a", "source": "s"}, {"problem_id": "b", "source": "t", "request_id": "x"}], "wait": true})",
      false);
  REQUIRE(call.requests.size() == 2);
  CHECK(call.wait);
  CHECK(*call.requests[1].request_id == "x");
  CHECK(batch_error(R"({"requests": []})").find("1 to 1024") != std::string::npos);
  CHECK(batch_error(R"({"requests": {}})").find("array") != std::string::npos);
  CHECK(batch_error(R"([{"problem_id": "a", "source": "s"}])").find("requests") != std::string::npos);
  CHECK(batch_error(R"({"requests": [{"problem_id": "a", "source": "s"}, {"source": "s"}]})") ==
        "requests[1]: missing 'problem_id'");
  CHECK(batch_error(R"({"requests": [{"problem_id": "a", "source": "s", "wait": true}]})").find("requests[0].wait") !=
        std::string::npos);
  CHECK(batch_error(R"({"requests": [{"problem_id": "a", "source": "s", "request_id": "d"},
                                     {"problem_id": "a", "source": "s", "request_id": "d"}]})")
            .find("twice") != std::string::npos);
  CHECK(batch_error(R"({"requests": [{"problem_id": "a", "source": "s"}], "extra": 1})").find("extra") != std::string::npos);
}

TEST_CASE("metrics are well-formed Prometheus text") {
  EvaluatorStats stats;
  stats.queued = 3;
  stats.running = 1;
  stats.finished = 7;
  stats.refused_queue_full = 2;
  stats.max_queued = 8;
  stats.slots = 2;
  stats.by_status = {{"ok", 5}, {"crashed", 2}};
  stats.time_sums.worker_wall_s = 12.5;
  stats.time_sums.queue_wait_s = 1.25;
  stats.time_sums.phases_s = {{"import", 2.0}, {"we\"ird", 1.0}};
  stats.fill.problems = 6;
  stats.fill.filled = 3;
  stats.fill.failed = 1;
  stats.fill.running = 1;
  stats.fill.seconds = 42.5;
  stats.kept = 50;
  stats.evicted_by_count = 250;
  stats.evicted_by_age = 4;
  HttpTally http;
  http.responses_by_code = {{200, 9}, {429, 2}};
  http.waiting = 1;
  const std::string text = metrics_text(stats, http);

  // Every family is announced (HELP, TYPE) before its samples, and every sample line parses.
  const std::regex sample(R"(^([a-z_]+)(\{[a-z_]+="(?:[^"\\]|\\.)*"\})? (-?[0-9.e+]+)$)");
  const std::regex type_line(R"(^# TYPE ([a-z_]+) (gauge|counter)$)");
  std::set<std::string> announced;
  std::istringstream lines(text);
  std::string line;
  std::size_t samples = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m, type_line)) {
      CHECK(announced.insert(m[1]).second);
      continue;
    }
    INFO(line);
    REQUIRE(std::regex_match(line, m, sample));
    CHECK(announced.count(m[1]) == 1);
    ++samples;
  }
  CHECK(samples > 10);
  CHECK(text.find("kbench_queue_depth 3\n") != std::string::npos);
  CHECK(text.find("kbench_in_flight 1\n") != std::string::npos);
  CHECK(text.find("kbench_evaluations_total{status=\"ok\"} 5\n") != std::string::npos);
  CHECK(text.find("kbench_evaluations_total{status=\"crashed\"} 2\n") != std::string::npos);
  CHECK(text.find("kbench_refused_total{reason=\"queue_full\"} 2\n") != std::string::npos);
  CHECK(text.find("kbench_time_seconds_total{part=\"worker_wall\"} 12.5\n") != std::string::npos);
  CHECK(text.find("kbench_phase_seconds_total{phase=\"we\\\"ird\"} 1\n") != std::string::npos);
  CHECK(text.find("kbench_http_responses_total{code=\"429\"} 2\n") != std::string::npos);
  CHECK(text.find("kbench_accepting 1\n") != std::string::npos);
  CHECK(text.find("kbench_reference_fill_problems 6\n") != std::string::npos);
  CHECK(text.find("kbench_reference_fill_pending 2\n") != std::string::npos);  // one queued, one running
  CHECK(text.find("kbench_reference_filled_total 3\n") != std::string::npos);
  CHECK(text.find("kbench_reference_fill_failed_total 1\n") != std::string::npos);
  CHECK(text.find("kbench_reference_fill_seconds_total 42.5\n") != std::string::npos);
  CHECK(text.find("# TYPE kbench_results_kept gauge\nkbench_results_kept 50\n") != std::string::npos);
  CHECK(text.find("# TYPE kbench_results_evicted_total counter\n") != std::string::npos);
  CHECK(text.find("kbench_results_evicted_total{reason=\"count\"} 250\n") != std::string::npos);
  CHECK(text.find("kbench_results_evicted_total{reason=\"age\"} 4\n") != std::string::npos);
  http.draining = true;
  CHECK(metrics_text(stats, http).find("kbench_accepting 0\n") != std::string::npos);
}
