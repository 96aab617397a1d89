// `kbench serve` end to end: the binary on a loopback port with real CPU workers, driven over
// HTTP by cpp-httplib's client. Honest, wrong and hostile candidates (files under tests/) come
// back with their statuses; idempotent ids run once; sessions carry feedback; /metrics counts
// them; a tiny queue answers 429 with Retry-After; the token is required where set and for a
// public bind; SIGTERM drains (503 for new work, accepted work finished and logged, exit 0).
// About 3-4 min on the 2-core CI machine (two servers, ~20 evaluations).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <chrono>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "serve_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using namespace kbench::test::serve;
const std::filesystem::path kSuite = kServeSuite;

}  // namespace

TEST_CASE("kbench serve: statuses, idempotency, sessions, metrics, errors, drain", "[e2e]") {
  kbench::test::TempDir dir;
  const auto results = dir.path() / "results.jsonl";
  ServeProcess serve(dir, {"--workers", "1", "--results", results.string()});
  Client client(serve.port());

  const Reply health = client.get("/health");
  CHECK(health.status == 200);
  CHECK(health.body["status"] == "ok");
  CHECK(health.body["slots"] == 1);

  // An honest candidate, waited for: the codec's results entry, the time split, the feedback.
  const Reply honest = client.post("/evaluate?wait=1", request("add_one", "data/candidates/add_one_ok.py", "honest-1"));
  REQUIRE(honest.status == 200);
  CHECK(honest.body["state"] == "finished");
  CHECK(honest.body["request_id"] == "honest-1");
  CHECK(honest.body["status"] == "ok");
  CHECK(honest.body["result"]["status"] == "ok");
  CHECK(honest.body["result"]["problem"] == "add_one");
  CHECK(honest.body["result"]["timings"].contains("candidate"));
  CHECK(honest.body["time"]["worker_wall_s"].get<double>() > 0);
  CHECK_FALSE(honest.body["feedback"].get<std::string>().empty());

  // The same id again: the same result, not a second evaluation; another candidate under it: 409.
  const Reply again = client.post("/evaluate", request("add_one", "data/candidates/add_one_ok.py", "honest-1"));
  CHECK(again.status == 200);
  CHECK(again.body["result"] == honest.body["result"]);
  const Reply conflict = client.post("/evaluate", request("add_one", "data/candidates/add_one_wrong_shape.py", "honest-1"));
  CHECK(conflict.status == 409);
  CHECK(conflict.body["error"]["code"] == "conflict");

  // Bad requests: one JSON error each, naming what is wrong.
  const Reply not_json = client.post_raw("/evaluate", "{oops");
  CHECK(not_json.status == 400);
  CHECK(not_json.body["error"]["code"] == "bad_request");
  const Reply typo = client.post_raw("/evaluate", R"({"problem_id": "add_one", "sourc": "x"})");
  CHECK(typo.status == 400);
  CHECK(typo.body["error"]["message"].get<std::string>().find("did you mean 'source'") != std::string::npos);
  const Reply unknown = client.post("/evaluate", request("add_onw", "data/candidates/add_one_ok.py"));
  CHECK(unknown.status == 400);
  CHECK(unknown.body["error"]["code"] == "unknown_problem");
  CHECK(unknown.body["error"]["message"].get<std::string>().find("did you mean 'add_one'") != std::string::npos);
  const Reply bad_id = client.post("/evaluate", request("add_one", "data/candidates/add_one_ok.py", "a/b"));
  CHECK(bad_id.status == 400);
  CHECK(client.get("/status/never-seen").status == 404);
  const Reply no_route = client.get("/nope");
  CHECK(no_route.status == 404);
  CHECK(no_route.body["error"]["code"] == "not_found");

  // Wrong and hostile candidates in one waited batch: each its status, the server unharmed.
  const std::vector<std::pair<std::string, std::string>> batch_files = {
      {"data/candidates/add_one_wrong_shape.py", "mismatch"}, {"hostile/segfault.py", "crashed"},
      {"data/candidates/add_one_forged_frame.py", "ok"},      {"hostile/raise_in_forward.py", "runtime_error"},
      {"hostile/syntax_error.py", "compile_error"},           {"hostile/os_exit_in_forward.py", "crashed"}};
  json batch = {{"requests", json::array()}, {"wait", true}};
  for (std::size_t i = 0; i < batch_files.size(); ++i)
    batch["requests"].push_back(request("add_one", batch_files[i].first, "batch-" + std::to_string(i)));
  batch["requests"].push_back(request("add_one_hang", "hostile/infinite_loop.py", "batch-hang"));
  batch["requests"].push_back(request("clamp_affine", "hostile/exploits/inplace_mutation.py", "batch-mutation"));
  const Reply batch_reply = client.post("/evaluate/batch", batch);
  REQUIRE(batch_reply.status == 200);
  const json& entries = batch_reply.body["results"];
  REQUIRE(entries.size() == batch_files.size() + 2);
  for (std::size_t i = 0; i < batch_files.size(); ++i) {
    INFO(batch_files[i].first);
    CHECK(entries[i]["request_id"] == "batch-" + std::to_string(i));
    CHECK(entries[i]["status"] == batch_files[i].second);
  }
  CHECK(entries[batch_files.size()]["status"] == "timeout");
  CHECK(entries[batch_files.size() + 1]["status"] == "rejected");
  CHECK(entries[0]["feedback"].get<std::string>().find("shape") != std::string::npos);

  // Without wait: 202 and an id, then /status and /results.
  const Reply accepted = client.post("/evaluate", request("clamp_affine", "hostile/exploits/honest_torch.py"));
  REQUIRE(accepted.status == 202);
  const std::string id = accepted.body["request_id"];
  CHECK(accepted.body["result_url"] == "/results/" + id);
  const Reply polled = await_result(client, id);
  REQUIRE(polled.status == 200);
  CHECK(polled.body["status"] == "ok");
  const Reply status = client.get("/status/" + id);
  CHECK(status.body["state"] == "finished");
  CHECK(status.body["status"] == "ok");

  // A session: two turns on one problem, each with the feedback for the next prompt.
  json turn1 = request("add_one", "data/candidates/add_one_wrong_shape.py", "conv-1-turn-1");
  turn1["session_id"] = "conv-1";
  turn1["wait"] = true;
  json turn2 = request("add_one", "data/candidates/add_one_ok.py", "conv-1-turn-2");
  turn2["session_id"] = "conv-1";
  turn2["wait"] = true;
  const Reply first = client.post("/evaluate", turn1);
  const Reply second = client.post("/evaluate", turn2);
  CHECK(first.body["session_id"] == "conv-1");
  CHECK(second.body["session_id"] == "conv-1");
  CHECK(first.body["status"] == "mismatch");
  CHECK(second.body["status"] == "ok");
  CHECK(first.body["feedback"] != second.body["feedback"]);

  // Distinct evaluations: honest-1, the batch (8), the polled one, two turns = 12.
  const std::size_t evaluations = 1 + batch_files.size() + 2 + 1 + 2;
  const Reply metrics = client.get("/metrics");
  CHECK(metrics.status == 200);
  CHECK(metric(metrics.text, "kbench_evaluations_finished_total") == double(evaluations));
  CHECK(metric(metrics.text, "kbench_evaluations_total{status=\"ok\"}") == 4);
  CHECK(metric(metrics.text, "kbench_evaluations_total{status=\"crashed\"}") == 2);
  CHECK(metric(metrics.text, "kbench_queue_depth") == 0);
  CHECK(metric(metrics.text, "kbench_in_flight") == 0);
  CHECK(metric(metrics.text, "kbench_time_seconds_total{part=\"worker_wall\"}") > 0);
  CHECK(metric(metrics.text, "kbench_http_responses_total{code=\"400\"}") >= 4);

  // SIGTERM with nothing running: drained at once, exit 0; every evaluation logged once.
  serve.signal(SIGTERM);
  REQUIRE(serve.exited(120s));
  INFO(serve.stderr_text());
  CHECK(serve.exit_code() == 0);
  CHECK(serve.stderr_text().find("drained") != std::string::npos);
  std::set<std::string> ids;
  for (const json& line : log_lines(results)) {
    CHECK(ids.insert(line["request_id"].get<std::string>()).second);
    CHECK(line["result"].contains("status"));
  }
  CHECK(ids.size() == evaluations);
  CHECK(ids.count("honest-1") == 1);
}

TEST_CASE("kbench serve: token, 429 under a tiny queue, request timeout, drain of accepted work", "[e2e]") {
  kbench::test::TempDir dir;
  const std::string token = "serve-test-token-0123456789";
  const auto token_file = dir.write("token", token + "\n");
  const auto results = dir.path() / "results.jsonl";
  ServeProcess serve(dir, {"--workers", "1", "--max-queue", "1", "--request-timeout", "2", "--token-file",
                           token_file.string(), "--results", results.string()});
  Client anonymous(serve.port());
  Client wrong(serve.port(), "not-the-token-at-all");
  Client client(serve.port(), token);

  CHECK(anonymous.get("/health").status == 200);  // liveness probes need no token
  const Reply refused = anonymous.post("/evaluate", request("add_one", "data/candidates/add_one_ok.py"));
  CHECK(refused.status == 401);
  CHECK(refused.body["error"]["code"] == "unauthorized");
  CHECK(wrong.get("/metrics").status == 401);
  CHECK(client.get("/metrics").status == 200);

  // One slot, one queue place: a hang (8 s watchdog) runs, one waits, the rest get 429.
  const Reply hang = client.post("/evaluate", request("add_one_hang", "hostile/infinite_loop.py", "hang"));
  REQUIRE(hang.status == 202);
  std::vector<std::string> accepted = {"hang"};
  int too_many = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string id = "queued-" + std::to_string(i);
    const Reply r = client.post("/evaluate", request("add_one", "data/candidates/add_one_ok.py", id));
    if (r.status == 202) accepted.push_back(id);
    if (r.status == 429) {
      ++too_many;
      CHECK(r.body["error"]["code"] == "queue_full");
      CHECK(std::stoi(r.retry_after) >= 1);
    }
  }
  CHECK(too_many >= 2);
  CHECK(accepted.size() <= 3);
  const Reply batch_refused = client.post("/evaluate/batch", {{"requests", {request("add_one", "data/candidates/add_one_ok.py", "b-0"),
                                                                            request("add_one", "data/candidates/add_one_ok.py", "b-1")}}});
  CHECK((batch_refused.status == 429 || batch_refused.status == 202));
  for (const json& entry : batch_refused.body["results"])
    if (entry.contains("error")) CHECK(entry["http_status"] == 429);
    else accepted.push_back(entry["request_id"]);

  // The request timeout: a waiting request gets 202 after ~2 s while the hang runs.
  const auto before = std::chrono::steady_clock::now();
  const Reply waited = client.post("/evaluate?wait=1", request("add_one_hang", "hostile/infinite_loop.py", "hang"));
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  CHECK(waited.status == 202);
  CHECK(waited_s >= 1.5);
  CHECK(waited_s < 10);

  // SIGTERM: new work 503, reads still answered, accepted work finished and logged, exit 0.
  serve.signal(SIGTERM);
  std::this_thread::sleep_for(500ms);
  const Reply late = client.post("/evaluate", request("add_one", "data/candidates/add_one_ok.py", "late"));
  CHECK(late.status == 503);
  CHECK(late.body["error"]["code"] == "draining");
  CHECK(client.get("/status/hang").status == 200);
  CHECK(anonymous.get("/health").status == 503);
  REQUIRE(serve.exited(300s));
  INFO(serve.stderr_text());
  CHECK(serve.exit_code() == 0);
  std::map<std::string, std::string> logged;
  for (const json& line : log_lines(results)) CHECK(logged.emplace(line["request_id"], line["status"]).second);
  CHECK(logged.size() == accepted.size());
  for (const auto& id : accepted) CHECK(logged.count(id) == 1);
  CHECK(logged["hang"] == "timeout");
}

TEST_CASE("kbench serve refuses a public bind without a token, before any work", "[e2e]") {
  const auto started = std::chrono::steady_clock::now();
  const auto out = kbench::test::run_kbench("serve " + kSuite.string() + " --host 0.0.0.0 --port 0 --device cpu");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("--token-file") != std::string::npos);
  kbench::test::TempDir dir;
  const auto short_token = dir.write("token", "short\n");
  const auto weak = kbench::test::run_kbench("serve " + kSuite.string() + " --host 0.0.0.0 --port 0 --token-file " +
                                             short_token.string());
  CHECK(weak.exit_code == 2);
  CHECK(weak.output.find("fewer than 16") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 10s);  // no probe, no worker
}
