// `kbench serve --keep-results 2` end to end (docs/serve.md#retention): the binary on a loopback
// port with real CPU workers. Four requests, the first two evicted: /results and /status answer
// 410 with the cap in the body (an id never seen stays 404); /metrics counts kept and evicted
// results; the results log still holds every evaluation, so eviction loses nothing measured; the
// first id submitted again is evaluated afresh as attempt 2 (its own line in the log), another
// candidate under it is 409. Five worker runs, ~20-30 s on 2 cores.
#include <csignal>
#include <map>
#include <sstream>

#include "catch.hpp"
#include "serve_process.hpp"
#include "temp_dir.hpp"

using namespace kbench::test::serve;

TEST_CASE("kbench serve evicts finished results beyond --keep-results: 410, metrics, the log keeps all", "[e2e]") {
  kbench::test::TempDir dir;
  const auto results = dir.path() / "results.jsonl";
  ServeProcess serve(dir, {"--workers", "2", "--keep-results", "2", "--results", results.string()});
  Client client(serve.port());

  const std::vector<std::pair<std::string, std::string>> sent = {{"k-1", "data/candidates/add_one_ok.py"},
                                                                  {"k-2", "hostile/syntax_error.py"},
                                                                  {"k-3", "data/candidates/add_one_wrong_shape.py"},
                                                                  {"k-4", "hostile/raise_in_forward.py"}};
  // One at a time, so that the order of finishing (the LRU order) is the order sent.
  for (const auto& [id, file] : sent) {
    const Reply r = client.post("/evaluate?wait=1", request("add_one", file, id));
    INFO(id << ": " << r.text << "\n" << serve.stderr_text());
    REQUIRE(r.status == 200);
    CHECK(r.body["attempt"] == 1);
  }
  const std::string first_status = log_lines(results).at(0)["status"];
  CHECK(first_status == "ok");

  for (const char* route : {"/results/", "/status/"}) {
    for (const char* id : {"k-1", "k-2"}) {
      const Reply gone = client.get(route + std::string(id));
      INFO(route << id << ": " << gone.text);
      CHECK(gone.status == 410);
      CHECK(gone.body["error"]["code"] == "evicted");
      CHECK(gone.body["error"]["message"].get<std::string>().find("--keep-results 2") != std::string::npos);
      CHECK(gone.body["state"] == "evicted");
      CHECK(gone.body["evicted_because"] == "count");
      CHECK(gone.body["keep_results"] == 2);
      CHECK(gone.body["problem_id"] == "add_one");
    }
    CHECK(client.get(route + std::string("k-4")).status == 200);
    CHECK(client.get(route + std::string("never-sent")).status == 404);
  }
  CHECK(client.get("/results/k-3").body["status"] == "mismatch");

  const std::string metrics = client.get("/metrics").text;
  CHECK(metric(metrics, "kbench_results_kept") == 2);
  CHECK(metric(metrics, "kbench_results_evicted_total{reason=\"count\"}") == 2);
  CHECK(metric(metrics, "kbench_results_evicted_total{reason=\"age\"}") == 0);

  // Evicted: the same request runs again (attempt 2); another candidate under the id is refused.
  const Reply again = client.post("/evaluate?wait=1", request("add_one", "data/candidates/add_one_ok.py", "k-1"));
  REQUIRE(again.status == 200);
  CHECK(again.body["attempt"] == 2);
  CHECK(again.body["status"] == "ok");
  CHECK(client.get("/results/k-1").status == 200);
  const Reply other = client.post("/evaluate", request("add_one", "hostile/segfault.py", "k-2"));
  CHECK(other.status == 409);
  CHECK(metric(client.get("/metrics").text, "kbench_evaluations_finished_total") == 5);

  serve.signal(SIGTERM);
  REQUIRE(serve.exited(120s));
  CHECK(serve.exit_code() == 0);
  // Every evaluation is in the log, evicted or not: one line per id and attempt.
  std::map<std::string, std::string> logged;
  for (const json& line : log_lines(results))
    CHECK(logged.emplace(line["request_id"].get<std::string>() + "#" + std::to_string(line["attempt"].get<int>()),
                         line["status"])
              .second);
  CHECK(logged.size() == 5);
  CHECK(logged["k-1#1"] == "ok");
  CHECK(logged["k-1#2"] == "ok");
  CHECK(logged["k-2#1"] == "compile_error");
  CHECK(logged["k-3#1"] == "mismatch");
  CHECK(logged["k-4#1"] == "runtime_error");
}
