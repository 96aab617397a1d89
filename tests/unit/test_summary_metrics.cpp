#include <cmath>

#include "catch.hpp"
#include "report/summary_metrics.hpp"
#include "sample_report.hpp"

using namespace kbench;
using Catch::Approx;

TEST_CASE("summary metrics of the sample report, computed by hand") {
  const auto m = compute_summary(test::sample_report().results);
  CHECK(m.problems == 3);
  CHECK(m.evaluations == 4);
  CHECK(m.correct == 2);
  // per problem: p1 1/1, p2 1/2, p3 0/1 -> (1 + 0.5 + 0) / 3
  CHECK(m.pass_at_1 == Approx(0.5));
  // only p1 beats Inductor: (1 + 0 + 0) / 3
  CHECK(*m.beats_inductor == Approx(1.0 / 3.0));
  // speedups vs Inductor 1.5 and 0.5 -> sqrt(0.75); vs eager 2 and 0.5 -> 1
  CHECK(*m.geomean_speedup_vs_inductor == Approx(std::sqrt(0.75)));
  CHECK(*m.geomean_speedup_vs_eager == Approx(1.0));
}

TEST_CASE("no correct candidates: no geomean, zero rates") {
  const auto m = compute_summary({test::sample_result("p", "c.py", Status::timeout, {}, {}, {})});
  CHECK(m.pass_at_1 == 0);
  CHECK(!m.beats_inductor);  // nothing was timed against Inductor
  CHECK(!m.geomean_speedup_vs_inductor);
  CHECK(!m.geomean_speedup_vs_eager);
}

TEST_CASE("beats Inductor is 0, not unset, when Inductor was timed but never beaten") {
  const auto m = compute_summary(
      {test::sample_result("p", "c.py", Status::ok, {3.0}, {2.0}, {1.0})});
  REQUIRE(m.beats_inductor);
  CHECK(*m.beats_inductor == 0);
}

TEST_CASE("an empty run has zero problems and no geomean") {
  const auto m = compute_summary({});
  CHECK(m.problems == 0);
  CHECK(m.pass_at_1 == 0);
  CHECK(!m.geomean_speedup_vs_eager);
}
