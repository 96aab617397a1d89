// `kbench history` on a real PostgreSQL server started by this test (postgres_server.hpp): the
// store's round trip and duplicate refusal, then add/trend through the binary with a
// postgresql:// URL on 12 synthetic nights with a planted slowdown. Exits 77 (CTest: skipped),
// saying why, only where no server can be started (not root, PostgreSQL not installed).
#include <cstdio>
#include <cstdlib>

#include "catch.hpp"
#include "core/error.hpp"
#include "history/history_entry.hpp"
#include "history/history_store.hpp"
#include "history_runs.hpp"
#include "postgres_server.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

test::PostgresServer& server() {
  if (const auto why = test::PostgresServer::unavailable()) {
    std::fprintf(stderr, "SKIP: %s\n", why->c_str());
    std::exit(77);
  }
  static test::PostgresServer instance;  // one server for the whole test program
  return instance;
}

}  // namespace

TEST_CASE("the PostgreSQL store keeps runs and refuses the same run twice") {
  const auto store = open_history_store(server().url());
  RunReport report = test::nightly_run(20);
  report.suite_name = "store-test";  // not the suite of the next test's trend
  const auto a = history_entry(report, "a.json", "abc", "2026-12-01T00:00:00Z");
  store->add_run(a.run, a.results);
  CHECK_THROWS_AS(store->add_run(a.run, a.results), InputError);
  const auto found = store->find_run(a.run.run_key);
  REQUIRE(found.has_value());
  CHECK(found->label == "abc");
  CHECK(found->pass_at_1 == Approx(a.run.pass_at_1));
  CHECK(found->geomean_vs_eager.value() == Approx(a.run.geomean_vs_eager.value()));
  CHECK(found->environment == a.run.environment);
  CHECK(store->load_results_json(a.run.run_key) == a.run.results_json);
  CHECK(store->results({std::nullopt, std::string("2026-11-21")}).size() == 4);
  // A wrong server is an environment error that names the database, without the password.
  try {
    open_history_store(fmt::format("postgresql://kbench:secret@127.0.0.1:{}/nope", server().port()));
    FAIL("connected to a database that does not exist");
  } catch (const EnvironmentError& e) {
    CHECK(std::string(e.what()).find("secret") == std::string::npos);
    CHECK(std::string(e.what()).find("nope") != std::string::npos);
  }
}

TEST_CASE("kbench history on PostgreSQL: 12 nights, the slowdown of the last is a regression") {
  test::TempDir dir;
  const auto files = test::write_nightly_runs(dir.path(), 12, 1.5);
  const std::string db = server().url();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto add = test::run_kbench(fmt::format("history add {} --db {} --label n{}", files[i].string(), db, i));
    INFO(add.output);
    REQUIRE(add.exit_code == 0);
  }
  CHECK(test::run_kbench(fmt::format("history add {} --db {}", files[0].string(), db)).exit_code == 2);
  const auto trend = test::run_kbench(fmt::format("history trend --db {} --suite nightly --md -", db));
  INFO(trend.output);
  CHECK(trend.exit_code == 1);
  CHECK(trend.output.find("run #12 (n11): p2 / p2_triton.py") != std::string::npos);
  // A 50% slowdown passes a 60% gate; --since leaves 8 of the 12 nights.
  const auto lenient = test::run_kbench(
      fmt::format("history trend --db {} --suite nightly --since 2026-11-05 --fail-on-regression 60 --md -", db));
  INFO(lenient.output);
  CHECK(lenient.exit_code == 0);
  CHECK(lenient.output.find("**Regression gate:** pass") != std::string::npos);
  CHECK(lenient.output.find("nightly (8 runs)") != std::string::npos);
}
