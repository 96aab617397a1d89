// Outputs the tolerance cannot tell from zeros (KernelBench issue #165): trivial_match on ATen CPU
// tensors, and the largest magnitude it starts from.
#include <ATen/ATen.h>

#include <limits>
#include <string>

#include "catch.hpp"
#include "correctness/output_comparison.hpp"
#include "correctness/trivial_output.hpp"

using namespace kbench;

namespace {
const Tolerance kFp32{1e-4, 1e-4};

// An output like KernelBench's 39_L2Norm at full size: every value within atol of zero.
at::Tensor tiny_output() { return at::tanh(at::randn({8, 512})) * 3e-5; }
}  // namespace

TEST_CASE("largest_magnitude: floating values only, finite only") {
  CHECK(largest_magnitude(at::tensor({-3.0f, 2.0f})) == Approx(3.0));
  CHECK(largest_magnitude(at::tensor({1.5}, at::kDouble)) == Approx(1.5));
  CHECK(largest_magnitude(at::tensor({4, -7})) == -1);  // integer
  CHECK(largest_magnitude(at::empty({0})) == -1);
  CHECK(largest_magnitude(at::tensor({1.0f, std::numeric_limits<float>::infinity()})) == -1);
  CHECK(largest_magnitude(at::tensor({1.0f, std::numeric_limits<float>::quiet_NaN()})) == -1);
}

TEST_CASE("zeros pass allclose on a tiny output, and trivial_match refuses them") {
  const auto expected = tiny_output();
  const double largest = largest_magnitude(expected);
  const auto zeros = at::zeros_like(expected);
  REQUIRE(compare_outputs({expected}, {zeros}, kFp32).ok);  // the hole
  const auto why = trivial_match({expected}, {largest}, {zeros}, kFp32);
  REQUIRE(why.has_value());
  CHECK(why->find("passes zeros") != std::string::npos);
  CHECK(why->find("output 0") != std::string::npos);
  // A constant at the output's mean misses by its spread.
  const auto constant = at::full_like(expected, expected.mean().item<float>());
  CHECK(trivial_match({expected}, {largest}, {constant}, kFp32).has_value());
}

TEST_CASE("honest outputs pass trivial_match, with rounding and in half precision") {
  const auto expected = tiny_output();
  CHECK_FALSE(trivial_match({expected}, {largest_magnitude(expected)}, {expected + 1e-9}, kFp32));
  // The same computed in bf16 against its fp32 result rounded once: bf16's own rounding (0.4% of
  // each value, a few steps of it) is far inside 5% of the largest.
  const auto x = at::randn({8, 512});
  const auto reference = (at::tanh(x) * 3e-5).to(at::kBFloat16);
  const auto in_bf16 = at::tanh(x.to(at::kBFloat16)) * 3e-5;
  const Tolerance bf16{1e-2, 1e-2};
  REQUIRE(compare_outputs({reference}, {at::zeros_like(reference)}, bf16).ok);
  CHECK_FALSE(trivial_match({reference}, {largest_magnitude(reference)}, {in_bf16}, bf16));
}

TEST_CASE("trivial_match leaves alone what zeros would not pass, and all-zero references") {
  const auto large = at::randn({64});
  // Zeros fail allclose here already; trivial_match adds nothing.
  CHECK_FALSE(trivial_match({large}, {largest_magnitude(large)}, {at::zeros_like(large)}, kFp32));
  const auto all_zero = at::zeros({16});
  CHECK_FALSE(trivial_match({all_zero}, {largest_magnitude(all_zero)}, {all_zero.clone()}, kFp32));
  // Unknown magnitude (-1: integer or not finite): not judged.
  CHECK_FALSE(trivial_match({tiny_output()}, {-1.0}, {at::zeros({8, 512})}, kFp32));
  // Only the output that zeros would pass is held to the stricter rule.
  const auto tiny = tiny_output();
  const auto why = trivial_match({large, tiny}, {largest_magnitude(large), largest_magnitude(tiny)},
                                 {large.clone(), at::zeros_like(tiny)}, kFp32);
  REQUIRE(why.has_value());
  CHECK(why->find("output 1") != std::string::npos);
}

TEST_CASE("sampled_call_tolerances: the trials' 5% rule for the calls of outputs every seed trial showed trivial") {
  const double largest = largest_magnitude(tiny_output());
  // Output 0 trivial on both trials; output 1 not (values of 1); output 2 trivial on one trial only;
  // output 3 an integer output (-1).
  const std::vector<std::vector<double>> trials = {{largest, 1.0, 2e-5, -1}, {0.5 * largest, 1.0, 0.5, -1}};
  const CallTolerances t = sampled_call_tolerances(trials, 4, kFp32);
  CHECK(t.at(0).atol == Approx(0.05 * largest));
  CHECK(t.at(0).rtol == 0);
  CHECK(t.note(0).find("trivial_output") != std::string::npos);
  for (std::size_t i : {1, 2, 3}) {
    CHECK(t.at(i).atol == kFp32.atol);
    CHECK(t.at(i).rtol == kFp32.rtol);
    CHECK(t.note(i).empty());
  }
  CHECK(t.at(7).atol == kFp32.atol);  // past the end: the suite's
  // No trials, no rule.
  CHECK(sampled_call_tolerances({}, 2, kFp32).at(0).atol == kFp32.atol);

  // On a timed call's sampled elements: zeros refused, honest rounding accepted.
  const auto expected = tiny_output();
  CHECK_FALSE(compare_outputs({expected}, {at::zeros_like(expected)}, t.at(0)).ok);
  CHECK(compare_outputs({expected}, {expected * (1 + 1e-6)}, t.at(0)).ok);
  CHECK(compare_outputs({expected}, {expected.to(at::kBFloat16).to(at::kFloat)}, t.at(0)).ok);
}
