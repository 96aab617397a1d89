// An isolated candidate's baseline samples against the reference worker's
// (integrity/baseline_cross_check.hpp): noise and a faster report pass; a baseline reported
// much slower than trusted is refused, with both medians.
#include "catch.hpp"
#include "integrity/baseline_cross_check.hpp"

using namespace kbench;

TEST_CASE("agreeing, noisy or faster baseline samples pass") {
  const std::vector<double> trusted = {1.00, 1.02, 0.99, 1.01};
  CHECK(!baseline_disagreement("eager", {1.00, 1.05, 0.98}, trusted));
  CHECK(!baseline_disagreement("eager", {1.40, 1.45, 1.38}, trusted));  // within 1.5x
  CHECK(!baseline_disagreement("eager", {0.20}, trusted));              // faster: only costs the candidate
  CHECK(!baseline_disagreement("eager", {0.015}, {0.001}));             // tiny calls: the margin
  CHECK(!baseline_disagreement("eager", {}, trusted));
  CHECK(!baseline_disagreement("eager", {5.0}, {}));
}

TEST_CASE("a baseline reported much slower than the trusted one is refused, with the numbers") {
  const auto refused = baseline_disagreement("eager", {3.0, 3.1, 2.9}, {1.0, 1.0, 1.02});
  REQUIRE(refused);
  CHECK(refused->find("eager baseline at a median 3 ms") != std::string::npos);
  CHECK(refused->find("timed it at 1 ms") != std::string::npos);
  CHECK(refused->find("3x slower") != std::string::npos);
  CHECK(baseline_disagreement("eager", {1.6}, {1.0}));
  CHECK(!baseline_disagreement("eager", {1.6}, {1.0}, BaselineRule{2.0, 0.0}));
}

TEST_CASE("the eager baseline's rule is tight, Inductor's loose (each process compiles its own)") {
  CHECK(baseline_rule("eager", true).factor == kEagerBaselineRule.factor);
  CHECK(baseline_rule("inductor", true).factor == BaselineRule{}.factor);
  const std::vector<double> trusted = {2.6951};
  // The H200's widest honest spread (1.020) passes; a layer swapped for one 1.2x slower does not.
  CHECK(!baseline_disagreement("eager", {2.6951 * 1.02}, trusted, baseline_rule("eager", true)));
  CHECK(baseline_disagreement("eager", {2.6951 * 1.2}, trusted, baseline_rule("eager", true)));
  CHECK(!baseline_disagreement("inductor", {2.6951 * 1.2}, trusted, baseline_rule("inductor", true)));
  // Tiny calls: 26 us against 26.8 us reported (the widest honest case) is within the margin.
  CHECK(!baseline_disagreement("eager", {0.0268}, {0.0262}, baseline_rule("eager", true)));
}

TEST_CASE("on the CPU the rule is loose, for every baseline, and still stops a baseline made many times slower") {
  CHECK(baseline_rule("eager", false).factor == kCpuBaselineRule.factor);
  CHECK(baseline_rule("inductor", false).margin_ms == kCpuBaselineRule.margin_ms);
  CHECK(baseline_rule("eager", true).factor == kEagerBaselineRule.factor);
  // The widest honest CPU spreads seen (2026-12-05: 16 us -> 29 us; 17.8 ms -> 20.0 ms) and the
  // 3x of 2026-11-30 pass.
  CHECK(!baseline_disagreement("eager", {0.029}, {0.016}, baseline_rule("eager", false)));
  CHECK(!baseline_disagreement("eager", {20.02}, {17.76}, baseline_rule("eager", false)));
  CHECK(!baseline_disagreement("eager", {3.0}, {1.0}, baseline_rule("eager", false)));
  // Python holding the GIL from torch's inter-op pool (interop_gil_spinner.py): 1.12 -> 20 ms.
  const auto refused = baseline_disagreement("eager", {20.4}, {1.12}, baseline_rule("eager", false));
  REQUIRE(refused);
  CHECK(refused->find("4 x + 0.1 ms") != std::string::npos);
}
