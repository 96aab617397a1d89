// The timing witness's bound (exec/timing_witness.hpp): honest samples and their noise pass,
// samples that claim much less than the controller's window allows are refused.
#include "catch.hpp"
#include "exec/timing_witness.hpp"

using namespace kbench;

TEST_CASE("honest samples are within the window, with noise and the window's own work") {
  const std::vector<double> samples_ms = {10.0, 10.5, 9.8, 11.0, 10.2};
  // 16 calls of ~10 ms: exactly as claimed, 2.5x slower (a cold, noisy window), with 50 ms of
  // input and output work the reference measured at 30 ms.
  CHECK(!witness_refusal(samples_ms, 16, 0.16, 0.0));
  CHECK(!witness_refusal(samples_ms, 16, 0.40, 0.0));
  CHECK(!witness_refusal(samples_ms, 16, 0.16 + 0.05, 0.03));
  // Tiny calls: the fixed margin (pipe, scheduler) dominates.
  CHECK(!witness_refusal({0.005}, 16, 0.04, 0.0));
  // Nothing claimed or no call: nothing to bound.
  CHECK(!witness_refusal({}, 16, 10.0, 0.0));
  CHECK(!witness_refusal(samples_ms, 0, 10.0, 0.0));
}

TEST_CASE("samples that claim far less than the window are refused, with the numbers") {
  // A call that takes 10 ms and claims 30 us: 16 calls take 0.16 s on the controller's clock.
  const auto refused = witness_refusal({0.03, 0.031, 0.029}, 16, 0.16, 0.001);
  REQUIRE(refused);
  CHECK(refused->find("16 witness calls on fresh inputs took 0.16 s") == 0);
  CHECK(refused->find("claimed median sample 0.03 ms") != std::string::npos);
  // Just beyond the factor: 3.5x the claim, with the margin spent.
  CHECK(witness_refusal({10.0}, 16, 3.5 * 0.16 + 0.05, 0.0));
  // The rule's factor and margin are the bound.
  CHECK(!witness_refusal({10.0}, 16, 0.2, 0.0, WitnessRule{1.25, 0.0}));
  CHECK(witness_refusal({10.0}, 16, 0.21, 0.0, WitnessRule{1.25, 0.0}));
}
