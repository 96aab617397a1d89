// `kbench serve`'s reference fill end to end (docs/serve.md#reference-fill): the binary on a
// loopback port with real CPU workers and kept reference work (`--keep-reference on`, a drift
// bound wide enough for a loaded CPU: this is about what is kept, not drift).
//   - After start the store fills without any request; /health answers while it runs and says
//     how far it is; a problem whose reference fails is reported and the service goes on.
//   - A request that comes while the fill runs jumps ahead of the fills still queued (one slot);
//     the fill then finds its record instead of measuring a second one.
//   - A request after the fill has no reference measurement in its time split; the same first
//     request without the fill has one (`kept_reference_refresh`).
//   - SIGTERM drops the fills not started and exits.
// About 1.5-2 min on the 2-core CI machine (three servers, ~7 worker runs).
#include <cstdio>
#include <filesystem>

#include "catch.hpp"
#include "serve_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench::test::serve;
namespace fs = std::filesystem;

namespace {

const fs::path kFillSuite = kbench::test::kDataDir / "suites/serve_fill.yaml";
const std::vector<std::string> kKept = {"--workers", "1", "--keep-reference", "on", "--keep-reference-drift", "0.9"};

std::vector<std::string> with(std::vector<std::string> arguments, const std::vector<std::string>& more) {
  arguments.insert(arguments.end(), more.begin(), more.end());
  return arguments;
}

// Folders under the store that hold a record; trusted workers started (one folder each).
std::size_t count_dirs(const fs::path& dir, const char* holding = nullptr) {
  std::size_t n = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const auto& item : fs::directory_iterator(dir))
    if (item.is_directory() && (!holding || fs::exists(item.path() / holding))) ++n;
  return n;
}

json await_fill(Client& client, std::chrono::seconds limit = 300s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const Reply health = client.get("/health");
    REQUIRE(health.status == 200);
    const json fill = health.body["reference_fill"];
    if (fill["done"] == true || std::chrono::steady_clock::now() > until) return fill;
    std::this_thread::sleep_for(250ms);
  }
}

bool has_phase(const json& reply, const char* phase) { return reply["time"]["phases_s"].contains(phase); }

}  // namespace

TEST_CASE("kbench serve fills the kept reference at start; first requests after it measure none", "[e2e]") {
  kbench::test::TempDir dir;
  const fs::path work = dir.path() / "work";
  ServeProcess serve(dir, with(kKept, {"--work-dir", work.string()}), kFillSuite);
  Client client(serve.port());

  // At once, while the first fill (add_one) runs: a request for clamp_affine, whose fill is queued.
  const Reply early = client.post("/evaluate", request("clamp_affine", "hostile/exploits/honest_torch.py", "early"));
  REQUIRE(early.status == 202);
  const auto asked = std::chrono::steady_clock::now();
  const Reply health = client.get("/health");
  CHECK(std::chrono::steady_clock::now() - asked < 5s);  // not blocked by the fill
  REQUIRE(health.status == 200);
  CHECK(health.body["reference_fill"]["problems"] == 3);

  const json fill = await_fill(client);
  INFO(fill.dump(2) << "\n" << serve.stderr_text());
  REQUIRE(fill["done"] == true);
  CHECK(fill["filled"] == 2);
  CHECK(fill["failed"] == 1);
  CHECK(fill["seconds"].get<double>() > 0);
  REQUIRE(fill["failures"].contains("oversized_reference"));
  CHECK_FALSE(fill["failures"]["oversized_reference"].get<std::string>().empty());
  const fs::path store = work / "jobs" / "kept-reference";
  CHECK(count_dirs(store, "record.json") == 2);  // add_one, clamp_affine

  const Reply jumped = await_result(client, "early");
  REQUIRE(jumped.status == 200);
  CHECK(jumped.body["status"] == "ok");
  const json& early_use = jumped.body["result"]["kept_reference"];
  CHECK(early_use["refreshed"] == true);
  CHECK(has_phase(jumped.body, "kept_reference_refresh"));
  // Three trusted measurements in all: add_one and the failing one by the fill, clamp_affine by
  // the request that went first; the clamp_affine fill found that record and measured nothing.
  // One more where that request's drift sample was refused (a loaded CPU host): the record is
  // measured again before its full-protocol run (exec/kept_reference_job.cpp).
  const bool drifted = !early_use.value("fallback", std::string()).empty();
  INFO("early request's kept reference: " << early_use.dump());
  CHECK(count_dirs(store / "trusted") == (drifted ? 4 : 3));

  // The first request of a filled problem: kept baselines, no reference measurement in its time.
  const Reply first = client.post("/evaluate?wait=1", request("add_one", "data/candidates/add_one_ok.py", "after-fill"));
  REQUIRE(first.status == 200);
  CHECK(first.body["status"] == "ok");
  const json& kept = first.body["result"]["kept_reference"];
  INFO("first add_one request's kept reference: " << kept.dump());
  // As for the early request: on a loaded host (CI runs pip installs beside this test) its drift
  // sample may be refused even at the wide bound, and then the full protocol runs. Once in CI
  // (2026-12-04) it was, and kept was false; the refusal must then be a drift refusal.
  const std::string first_fallback = kept.value("fallback", std::string());
  if (first_fallback.empty()) {
    CHECK(kept["kept"] == true);
    CHECK(kept["refreshed"] == false);
    CHECK(kept["refresh_s"] == 0);
    CHECK_FALSE(has_phase(first.body, "kept_reference_refresh"));
  } else {
    CHECK(first_fallback.rfind("the fresh baseline differs from the kept one", 0) == 0);
  }
  std::printf("first add_one request with the fill: %.2f s total (worker %.2f s)\n",
              first.body["time"]["total_s"].get<double>(), first.body["time"]["worker_wall_s"].get<double>());

  // The failing problem's request is its own result; the service goes on.
  const Reply broken =
      client.post("/evaluate?wait=1", request("oversized_reference", "data/candidates/wide_relu_ok.py", "broken"));
  REQUIRE(broken.status == 200);
  CHECK(broken.body["status"] == "problem_error");
  CHECK(client.get("/health").status == 200);

  const Reply metrics = client.get("/metrics");
  CHECK(metric(metrics.text, "kbench_reference_fill_problems") == 3);
  CHECK(metric(metrics.text, "kbench_reference_filled_total") == 2);
  CHECK(metric(metrics.text, "kbench_reference_fill_failed_total") == 1);
  CHECK(metric(metrics.text, "kbench_reference_fill_pending") == 0);
  CHECK(metric(metrics.text, "kbench_reference_fill_seconds_total") > 0);
  CHECK(metric(metrics.text, "kbench_evaluations_finished_total") == 3);  // fills are not evaluations

  serve.signal(SIGTERM);
  REQUIRE(serve.exited(120s));
  CHECK(serve.exit_code() == 0);
}

TEST_CASE("kbench serve --fill-reference off: the first request measures the reference in its own time", "[e2e]") {
  kbench::test::TempDir dir;
  ServeProcess serve(dir, with(kKept, {"--fill-reference", "off"}), kFillSuite);
  Client client(serve.port());
  const Reply health = client.get("/health");
  CHECK(health.body["reference_fill"]["problems"] == 0);
  CHECK(health.body["reference_fill"]["off"].get<std::string>().find("off") != std::string::npos);
  // A session's first turn: its problem is kept from this turn on, so its reference is measured now.
  json body = request("add_one", "data/candidates/add_one_ok.py", "no-fill");
  body["session_id"] = "s-1";
  const Reply first = client.post("/evaluate?wait=1", body);
  REQUIRE(first.status == 200);
  CHECK(first.body["status"] == "ok");
  CHECK(first.body["result"]["kept_reference"]["refreshed"] == true);
  REQUIRE(has_phase(first.body, "kept_reference_refresh"));
  CHECK(first.body["time"]["phases_s"]["kept_reference_refresh"].get<double>() > 0);
  std::printf("first add_one request without the fill: %.2f s total (worker %.2f s, of which reference %.2f s)\n",
              first.body["time"]["total_s"].get<double>(), first.body["time"]["worker_wall_s"].get<double>(),
              first.body["time"]["phases_s"]["kept_reference_refresh"].get<double>());
  serve.signal(SIGTERM);
  REQUIRE(serve.exited(120s));
  CHECK(serve.exit_code() == 0);
}

TEST_CASE("kbench serve drains at once when SIGTERM comes during the fill: fills not started are dropped", "[e2e]") {
  kbench::test::TempDir dir;
  ServeProcess serve(dir, kKept, kFillSuite);
  serve.signal(SIGTERM);  // the first fill is running; two wait
  REQUIRE(serve.exited(120s));
  INFO(serve.stderr_text());
  CHECK(serve.exit_code() == 0);
  const std::string err = serve.stderr_text();
  std::size_t fills_run = 0;  // one line per fill that ran: "kbench: reference fill ID: ..."
  for (auto at = err.find("kbench: reference fill "); at != std::string::npos;
       at = err.find("kbench: reference fill ", at + 1))
    ++fills_run;
  CHECK(fills_run <= 1);
  CHECK(err.find("not started dropped") != std::string::npos);
  CHECK(err.find("drained") != std::string::npos);
}
