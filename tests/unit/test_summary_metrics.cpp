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

// ---- pass@k -------------------------------------------------------------------------------

TEST_CASE("pass@k for one problem, by hand from 1 - C(n-c, k) / C(n, k)") {
  CHECK(pass_at_k(10, 0, 5) == 0);                      // nothing correct
  CHECK(pass_at_k(10, 10, 5) == 1);                     // everything correct
  CHECK(pass_at_k(10, 3, 1) == Approx(0.3));            // pass@1 = c / n
  CHECK(pass_at_k(10, 3, 5) == Approx(1 - 21.0 / 252));  // C(7,5) = 21, C(10,5) = 252
  CHECK(pass_at_k(6, 1, 5) == Approx(1 - 1.0 / 6));     // C(5,5) = 1, C(6,5) = 6
  CHECK(pass_at_k(5, 2, 5) == 1);                       // n - c = 3 < k: every draw has a hit
  CHECK(pass_at_k(10, 1, 10) == 1);                     // n - c = 9 < k
  CHECK_THROWS(pass_at_k(4, 1, 5));                     // n < k: undefined
}

namespace {

// `n` candidates for `problem`, the first `c` of them correct, none timed.
std::vector<JobResult> candidates(const std::string& problem, int n, int c) {
  std::vector<JobResult> out;
  for (int i = 0; i < n; ++i)
    out.push_back(test::sample_result(problem, "c" + std::to_string(i) + ".py",
                                      i < c ? Status::ok : Status::mismatch, {}, {}, {}));
  return out;
}

}  // namespace

TEST_CASE("suite pass@k averages over the problems with at least k samples") {
  std::vector<JobResult> results;
  for (auto part : {candidates("a", 10, 3), candidates("b", 5, 1), candidates("c", 1, 1)})
    results.insert(results.end(), part.begin(), part.end());
  const auto m = compute_summary(results);
  // pass@1: (3/10 + 1/5 + 1/1) / 3
  CHECK(m.pass_at_k.at(1) == Approx(0.5));
  CHECK(m.pass_at_1 == Approx(0.5));
  // pass@5 over a and b only (c has n = 1 < 5): a 1 - 21/252 = 11/12; b n - c = 4 < 5 -> 1
  CHECK(m.pass_at_k.at(5) == Approx((11.0 / 12 + 1) / 2));
  // pass@10 over a only: n - c = 7 < 10 -> 1
  CHECK(m.pass_at_k.at(10) == 1);
}

TEST_CASE("pass@k of the sample report has only k = 1 (no problem has 5 samples)") {
  const auto m = compute_summary(test::sample_report().results);
  CHECK(m.pass_at_k.size() == 1);
  CHECK(m.pass_at_k.at(1) == Approx(0.5));
}

// ---- fast_p -------------------------------------------------------------------------------

TEST_CASE("fast_p of the sample report (constant samples: CI = point, so both figures agree)") {
  const auto m = compute_summary(test::sample_report().results);
  REQUIRE(m.fast_p.at("inductor"));
  REQUIRE(m.fast_p.at("eager"));
  const auto& ind = *m.fast_p.at("inductor");
  const auto& eag = *m.fast_p.at("eager");
  for (const auto* f : {&ind.point, &ind.significant}) {
    // vs Inductor: p1 1.5x, p2_triton 0.5x (p2 has 2 candidates), p3 crashed
    CHECK(f->at("0") == Approx(0.5));           // correctness rate: (1 + 1/2 + 0) / 3
    CHECK(f->at("0.5") == Approx(1.0 / 3));     // 0.5 is not > 0.5: only p1
    CHECK(f->at("0.8") == Approx(1.0 / 3));
    CHECK(f->at("1") == Approx(1.0 / 3));
    CHECK(f->at("1.5") == 0);                   // 1.5 is not > 1.5
    CHECK(f->at("2") == 0);
  }
  for (const auto* f : {&eag.point, &eag.significant}) {
    // vs eager: p1 2x, p2_triton 0.5x
    CHECK(f->at("0") == Approx(0.5));
    CHECK(f->at("1") == Approx(1.0 / 3));
    CHECK(f->at("1.5") == Approx(1.0 / 3));
    CHECK(f->at("2") == 0);                     // 2 is not > 2
  }
  CHECK(*m.beats_inductor == Approx(ind.point.at("1")));
  CHECK(*m.beats_inductor_significant == Approx(1.0 / 3));
}

namespace {

// A correct (or not) result timed against Inductor only, with an explicit speedup and CI.
JobResult with_speedup(const std::string& problem, Status status, double value,
                       std::optional<Interval> ci) {
  JobResult r;
  r.job.problem_id = problem;
  r.job.level = 1;
  r.status = status;
  r.timings["candidate"] = Measurement{};
  r.timings["inductor"] = Measurement{};
  if (is_correct(status)) r.speedups["inductor"] = SpeedupEstimate{value, ci, std::nullopt};
  return r;
}

}  // namespace

TEST_CASE("significant fast_p needs the CI above p; the point figure only the value") {
  const auto m = compute_summary({
      with_speedup("q1", Status::ok, 1.2, Interval{1.05, 1.4}),    // clearly faster
      with_speedup("q2", Status::ok, 1.1, Interval{0.95, 1.3}),    // CI straddles 1
      with_speedup("q3", Status::ok, 1.01, Interval{0.97, 1.05}),  // a copy of the reference
      with_speedup("q4", Status::ok, 2.5, Interval{2.1, 2.9}),
      with_speedup("q4", Status::mismatch, 0, std::nullopt),
      with_speedup("q5", Status::ok, 1.6, std::nullopt),  // no CI (mean statistic): never significant
  });
  CHECK(!m.fast_p.at("eager"));  // nothing timed against eager
  CHECK(!m.geomean.at("eager"));
  REQUIRE(m.fast_p.at("inductor"));
  const auto& f = *m.fast_p.at("inductor");
  // 5 problems; q4 has 2 candidates, so it adds 1/2 when its correct one qualifies.
  CHECK(f.point.at("0") == Approx(4.5 / 5));
  CHECK(f.significant.at("0") == Approx(4.5 / 5));
  CHECK(f.point.at("0.8") == Approx(4.5 / 5));
  CHECK(f.significant.at("0.8") == Approx(3.5 / 5));  // q1, q2, q3, q4/2
  CHECK(f.point.at("1") == Approx(4.5 / 5));
  CHECK(f.significant.at("1") == Approx(1.5 / 5));    // q1, q4/2
  CHECK(f.point.at("1.5") == Approx(1.5 / 5));        // q4/2, q5
  CHECK(f.significant.at("1.5") == Approx(0.5 / 5));  // q4/2
  CHECK(f.point.at("2") == Approx(0.5 / 5));
  CHECK(f.significant.at("2") == Approx(0.5 / 5));
  CHECK(*m.beats_inductor == Approx(4.5 / 5));
  CHECK(*m.beats_inductor_significant == Approx(1.5 / 5));
}

// ---- geomeans with CIs --------------------------------------------------------------------

TEST_CASE("geomeans over correct candidates and with failures at 1x, with bootstrap CIs") {
  const auto m = compute_summary(test::sample_report().results);
  REQUIRE(m.geomean.at("inductor"));
  const auto& ind = *m.geomean.at("inductor");
  REQUIRE(ind.correct);
  CHECK(ind.correct->value == Approx(std::sqrt(0.75)));
  // resampling {1.5, 0.5}: each extreme has probability 1/4 > 2.5%, so the CI is [0.5, 1.5]
  CHECK(ind.correct->ci.low == Approx(0.5));
  CHECK(ind.correct->ci.high == Approx(1.5));
  // {1.5, 0.5, 1 (mismatch), 1 (crash)} -> 0.75^(1/4)
  REQUIRE(ind.all_failures_as_1x);
  const auto& all = *ind.all_failures_as_1x;
  CHECK(all.value == Approx(std::pow(0.75, 0.25)));
  CHECK(all.ci.low >= 0.5);
  CHECK(all.ci.low < all.value);
  CHECK(all.value < all.ci.high);
  CHECK(all.ci.high <= 1.5);
  const auto& eag = *m.geomean.at("eager");
  CHECK(eag.correct->value == Approx(1.0));  // {2, 0.5}
  CHECK(eag.correct->ci.low == Approx(0.5));
  CHECK(eag.correct->ci.high == Approx(2.0));
  CHECK(eag.all_failures_as_1x->value == Approx(1.0));  // {2, 0.5, 1, 1}
  // fixed seed: the same results give the same interval
  const auto again = compute_summary(test::sample_report().results);
  CHECK(again.geomean.at("inductor")->all_failures_as_1x->ci.low == all.ci.low);
  CHECK(again.geomean.at("inductor")->all_failures_as_1x->ci.high == all.ci.high);
}

// ---- breakdowns ---------------------------------------------------------------------------

TEST_CASE("breakdowns per level and per tag; a problem counts in each of its tags") {
  auto results = test::sample_report().results;  // every result: level 1, tag "t"
  results[3].job.level = 2;                        // p3 (crashed)
  results[0].job.tags = {"t", "conv"};             // p1
  const auto m = compute_summary(results);
  REQUIRE(m.by_level.size() == 2);
  const auto& l1 = m.by_level.at(1);  // p1, p2
  CHECK(l1.problems == 2);
  CHECK(l1.evaluations == 3);
  CHECK(l1.correct == 2);
  CHECK(l1.pass_at_1 == Approx(0.75));        // (1 + 1/2) / 2
  CHECK(*l1.beats_inductor == Approx(0.5));   // (1 + 0) / 2
  CHECK(*l1.geomean_speedup_vs_inductor == Approx(std::sqrt(0.75)));
  const auto& l2 = m.by_level.at(2);  // p3 only, never timed
  CHECK(l2.problems == 1);
  CHECK(l2.correct == 0);
  CHECK(l2.pass_at_1 == 0);
  CHECK(!l2.beats_inductor);
  CHECK(!l2.geomean_speedup_vs_inductor);
  REQUIRE(m.by_tag.size() == 2);
  const auto& t = m.by_tag.at("t");  // everything
  CHECK(t.problems == 3);
  CHECK(t.evaluations == 4);
  CHECK(t.pass_at_1 == Approx(0.5));
  CHECK(*t.beats_inductor == Approx(1.0 / 3));
  const auto& conv = m.by_tag.at("conv");  // p1 only
  CHECK(conv.problems == 1);
  CHECK(conv.pass_at_1 == 1);
  CHECK(*conv.beats_inductor == 1);
  CHECK(*conv.geomean_speedup_vs_inductor == Approx(1.5));
}

TEST_CASE("new figures are unset or empty when nothing was timed") {
  const auto failed = compute_summary({test::sample_result("p", "c.py", Status::timeout, {}, {}, {})});
  CHECK(failed.pass_at_k.at(1) == 0);
  CHECK(!failed.beats_inductor_significant);
  CHECK(!failed.fast_p.at("inductor"));
  CHECK(!failed.geomean.at("eager"));
  const auto empty = compute_summary({});
  CHECK(empty.pass_at_k.at(1) == 0);
  CHECK(empty.by_level.empty());
  CHECK(empty.by_tag.empty());
}
