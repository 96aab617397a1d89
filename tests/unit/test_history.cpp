// `kbench history`: the SQLite store, change points, the rolling baseline, and add/trend through
// the binary on 12 synthetic nights with a planted slowdown in the last (the trend page is kept
// for tests/render/test_html_render.sh; the PostgreSQL side is test_history_postgres.cpp).
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "history/history_entry.hpp"
#include "history/history_store.hpp"
#include "history/rolling_gate.hpp"
#include "history/trend.hpp"
#include "history_runs.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("change points: noise is not a change, a step is") {
  std::vector<std::optional<double>> flat;
  for (int i = 0; i < 12; ++i) flat.emplace_back(1.0 + 0.008 * ((i * 7) % 5 - 2) / 2);
  const auto none = change_points(flat, 5, 0.05, true);
  CHECK(std::count(none.begin(), none.end(), true) == 0);
  auto step = flat;
  step.back() = 1.5;
  step[3] = std::nullopt;  // a night where it was not measured
  const auto marked = change_points(step, 5, 0.05, true);
  CHECK(marked.back());
  CHECK(std::count(marked.begin(), marked.end(), true) == 1);
  // Too little history: the first three points are never marked.
  CHECK(!change_points({1.0, 10.0, 100.0}, 5, 0.05, true)[2]);
  REQUIRE(rolling_median(step, 11, 5).has_value());
  CHECK(*rolling_median(step, 11, 5) == Approx(flat[9].value()).epsilon(0.02));
}

TEST_CASE("the rolling baseline takes each pair's median-time correct result") {
  std::vector<RunReport> previous;
  for (double slow : {1.0, 3.0, 1.2}) previous.push_back(test::nightly_run(int(previous.size()), slow));
  previous[1].results[0].status = Status::mismatch;  // p1 failed that night
  const RunReport base = rolling_baseline(previous);
  REQUIRE(base.results.size() == 4);
  CHECK(base.results[1].job.problem_id == "p2");
  // p2 at 1.0x, 3.0x, 1.2x: the median night is 1.2x.
  CHECK(base.results[1].timings.at("candidate").headline_ms() ==
        Approx(previous[2].results[1].timings.at("candidate").headline_ms()));
  CHECK(is_correct(base.results[0].status));     // p1: correct in two of three
  CHECK(base.results[3].status == Status::mismatch);  // never correct: the latest
  CHECK(base.planned_jobs == base.results.size());
}

TEST_CASE("the SQLite store keeps runs and refuses the same run twice") {
  test::TempDir dir;
  const auto store = open_history_store((dir.path() / "h.sqlite").string());
  const auto a = history_entry(test::nightly_run(0), "a.json", "abc123", "2026-12-01T00:00:00Z");
  const auto b = history_entry(test::nightly_run(1), "b.json", "", "2026-12-01T00:00:01Z");
  store->add_run(a.run, a.results);
  store->add_run(b.run, b.results);
  CHECK_THROWS_AS(store->add_run(a.run, a.results), InputError);
  const auto runs = store->runs({});
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].label == "abc123");
  CHECK(runs[0].torch == "2.11.0");
  CHECK(runs[0].device_name == "CPU");
  CHECK(runs[0].pass_at_1 == Approx(a.run.pass_at_1));
  CHECK(runs[0].geomean_vs_eager.has_value());
  CHECK(store->runs({std::nullopt, std::string("2026-11-02")}).size() == 1);
  CHECK(store->runs({std::string("other"), std::nullopt}).empty());
  const auto results = store->results({});
  CHECK(results.size() == 8);
  CHECK(store->load_results_json(a.run.run_key) == a.run.results_json);
  // An incomplete run is no trend point.
  RunReport partial = test::nightly_run(2);
  partial.planned_jobs += 1;
  CHECK_THROWS_AS(history_entry(partial, "p.json", "", ""), InputError);
}

TEST_CASE("kbench history add and trend: 12 nights, a planted slowdown in the last") {
  test::TempDir dir;
  const auto files = test::write_nightly_runs(dir.path(), 12, 1.5);
  const std::string db = (dir.path() / "history.sqlite").string();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto add = test::run_kbench(fmt::format("history add {} --db {} --label night-{}", files[i].string(), db, i));
    INFO(add.output);
    REQUIRE(add.exit_code == 0);
  }
  const auto again = test::run_kbench(fmt::format("history add {} --db {}", files[3].string(), db));
  CHECK(again.exit_code == 2);
  CHECK(again.output.find("already in the history") != std::string::npos);

  const auto html = dir.path() / "trend.html";
  const auto trend = test::run_kbench(fmt::format("history trend --db {} --window 5 --html {} --md -", db, html.string()));
  INFO(trend.output);
  CHECK(trend.exit_code == 1);
  CHECK(trend.output.find("**Regression gate:** FAIL") != std::string::npos);
  CHECK(trend.output.find("run #12 (night-11): p2 / p2_triton.py") != std::string::npos);
  const std::string page = read_text(html);
  CHECK(page.find("<svg") != std::string::npos);
  CHECK(count(page, "<svg") == 5);  // pass@1, speedups, p1, p2, p3
  CHECK(count(page, "class=\"change-point\"") >= 2);  // p2's time and the geomean
  CHECK(page.find("<script") == std::string::npos);
  // The page for the browser test (tests/render/test_html_render.sh, fixture history_trend).
  std::filesystem::copy_file(html, KBENCH_TREND_HTML, std::filesystem::copy_options::overwrite_existing);

  // The same history without the last night: no change point, the gate passes.
  const auto before = test::run_kbench(
      fmt::format("history trend --db {} --since 2026-11-01 --md - --fail-on-regression 5", db + ".none"));
  CHECK(before.exit_code == 2);  // no such database content: nothing stored
  const std::string db11 = (dir.path() / "eleven.sqlite").string();
  for (std::size_t i = 0; i + 1 < files.size(); ++i)
    REQUIRE(test::run_kbench(fmt::format("history add {} --db {}", files[i].string(), db11)).exit_code == 0);
  const auto calm = test::run_kbench(fmt::format("history trend --db {} --md -", db11));
  INFO(calm.output);
  CHECK(calm.exit_code == 0);
  CHECK(calm.output.find("**Regression gate:** pass") != std::string::npos);
  CHECK(calm.output.find("### Change points\n\nnone") != std::string::npos);
}

TEST_CASE("kbench history: bad input is exit 2 with what to do") {
  test::TempDir dir;
  const auto files = test::write_nightly_runs(dir.path(), 1, 1.0);
  const std::string db = (dir.path() / "h.sqlite").string();
  REQUIRE(test::run_kbench(fmt::format("history add {} --db {}", files[0].string(), db)).exit_code == 0);
  const auto since = test::run_kbench(fmt::format("history trend --db {} --since yesterday", db));
  CHECK(since.exit_code == 2);
  CHECK(since.output.find("give a date, YYYY-MM-DD") != std::string::npos);
  const auto suite = test::run_kbench(fmt::format("history trend --db {} --suite level9", db));
  CHECK(suite.exit_code == 2);
  CHECK(suite.output.find("it holds: nightly") != std::string::npos);
  CHECK(test::run_kbench(fmt::format("history add {} --db mysql://host/db", files[0].string())).exit_code == 2);
  CHECK(test::run_kbench(fmt::format("history add {} --db {}/no/such/dir/h.sqlite", files[0].string(),
                                     dir.path().string())).exit_code == 2);
  // One run: nothing to compare with, said so; not a failure.
  const auto alone = test::run_kbench(fmt::format("history trend --db {}", db));
  CHECK(alone.exit_code == 0);
  CHECK(alone.output.find("no earlier run on CPU with torch 2.11.0") != std::string::npos);
}
