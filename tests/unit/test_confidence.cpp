// Statistics on synthetic samples with known answers.
#include <cmath>
#include <random>

#include "catch.hpp"
#include "model/job_result.hpp"
#include "measure/confidence.hpp"
#include "measure/sample_stats.hpp"

using namespace kbench;
using Catch::Approx;

namespace {
RoundSamples normal_rounds(double mean, double sd, int rounds, int per_round, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(mean, sd);
  RoundSamples out(rounds);
  for (auto& r : out)
    for (int i = 0; i < per_round; ++i) r.push_back(dist(rng));
  return out;
}
std::vector<double> flat(const RoundSamples& rounds) {
  std::vector<double> all;
  for (const auto& r : rounds) all.insert(all.end(), r.begin(), r.end());
  return all;
}
}  // namespace

TEST_CASE("quantiles interpolate linearly") {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  CHECK(sorted_quantile(v, 0) == 1);
  CHECK(sorted_quantile(v, 0.5) == 3);
  CHECK(sorted_quantile(v, 0.25) == 2);
  CHECK(sorted_quantile(v, 0.1) == Approx(1.4));
  const auto s = summarize({10, 20, 30, 40});
  CHECK(s.p25 == Approx(17.5));
  CHECK(s.cv == Approx(s.stdev / 25));
}

TEST_CASE("the median CI covers the true median about 95% of the time") {
  int covered_bootstrap = 0, covered_order = 0;
  const int experiments = 200;
  for (int e = 0; e < experiments; ++e) {
    const auto rounds = normal_rounds(100, 5, 8, 10, 1000 + e);
    covered_bootstrap += bootstrap_median_ci(rounds, {500, 0.95, std::uint64_t(e)}).contains(100);
    covered_order += median_order_statistic_ci(flat(rounds)).contains(100);
  }
  // Independent samples: both methods near nominal (binomial sd of the rate ~1.5%).
  CHECK(covered_bootstrap >= 0.88 * experiments);
  CHECK(covered_order >= 0.90 * experiments);
}

TEST_CASE("round-level resampling widens the CI when rounds are correlated") {
  // Each round has its own offset (a clock state), shared by its samples.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> offset(0, 3), noise(0, 0.5);
  RoundSamples rounds(6);
  for (auto& r : rounds) {
    const double o = offset(rng);
    for (int i = 0; i < 20; ++i) r.push_back(100 + o + noise(rng));
  }
  const Interval by_round = bootstrap_median_ci(rounds);
  const Interval naive = median_order_statistic_ci(flat(rounds));
  CHECK((by_round.high - by_round.low) > 1.5 * (naive.high - naive.low));
}

TEST_CASE("ratio CI of a variant against itself contains 1, and a 10% change excludes it") {
  const auto a = normal_rounds(100, 1, 6, 10, 1);
  const auto b = normal_rounds(100, 1, 6, 10, 2);
  const auto slow = normal_rounds(110, 1, 6, 10, 3);
  CHECK(bootstrap_ratio_ci(a, b).contains(1.0));
  const Interval ci = bootstrap_ratio_ci(slow, a);
  CHECK(ci.low > 1.05);
  CHECK(ci.high < 1.15);
  CHECK_THROWS(bootstrap_ratio_ci(a, normal_rounds(100, 1, 5, 10, 4)));
}

TEST_CASE("pairing by round cancels drift shared by both variants") {
  // Both variants drift by +30% over the run, sampled in the same rounds: the ratio stays ~1
  // and the CI is narrow; the medians alone move a lot.
  RoundSamples a, b;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 0.2);
  for (int r = 0; r < 10; ++r) {
    const double level = 100 * (1 + 0.03 * r);
    a.emplace_back();
    b.emplace_back();
    for (int i = 0; i < 10; ++i) {
      a.back().push_back(level + noise(rng));
      b.back().push_back(level + noise(rng));
    }
  }
  const Interval ci = bootstrap_ratio_ci(a, b);
  CHECK(ci.contains(1.0));
  CHECK(ci.high - ci.low < 0.15);
}

TEST_CASE("an outlier burst moves the mean but hardly the median") {
  std::vector<double> v(200, 10.0);
  for (int i = 0; i < 200; ++i) v[i] += 0.01 * (i % 7);
  for (int i = 50; i < 60; ++i) v[i] = 1000;  // a burst: 5% of samples
  const auto s = summarize(v);
  CHECK(s.median < 10.1);
  CHECK(s.mean > 50);
}

TEST_CASE("speedup verdicts") {
  CHECK(classify_speedup(1.10, {1.08, 1.12}) == SpeedupVerdict::faster);
  CHECK(classify_speedup(0.90, {0.88, 0.92}) == SpeedupVerdict::slower);
  CHECK(classify_speedup(1.003, {0.995, 1.01}) == SpeedupVerdict::same);
  CHECK(classify_speedup(1.01, {1.005, 1.015}) == SpeedupVerdict::same);  // real but < 2%
  CHECK(classify_speedup(1.05, {0.97, 1.13}) == SpeedupVerdict::ambiguous);
  CHECK(to_string(SpeedupVerdict::ambiguous) == "AMBIGUOUS");
}
