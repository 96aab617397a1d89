// Correctness decisions on ATen CPU tensors (no Python involved).
#include <ATen/ATen.h>

#include <limits>

#include "catch.hpp"
#include "check/output_comparison.hpp"

using namespace kbench;

namespace {
const Tolerance kFp32{1e-4, 1e-4};
}

TEST_CASE("identical and within-tolerance outputs match") {
  const auto x = at::randn({8, 16});
  CHECK(compare_outputs({x}, {x.clone()}, kFp32).ok);
  const auto r = compare_outputs({x}, {x + 5e-5}, kFp32);
  CHECK(r.ok);
  CHECK(r.max_abs_error > 4e-5);
}

TEST_CASE("a mismatch reports errors, fraction and first bad index") {
  auto expected = at::zeros({4, 4});
  auto actual = expected.clone();
  actual.index_put_({1, 2}, 1.0);
  actual.index_put_({3, 3}, -2.0);
  const auto r = compare_outputs({expected}, {actual}, kFp32);
  CHECK(!r.ok);
  CHECK(r.output_index == 0);
  CHECK(r.first_bad_index == 6);
  CHECK(r.mismatched_fraction == Catch::Approx(2.0 / 16.0));
  CHECK(r.max_abs_error == Catch::Approx(2.0));
  CHECK(r.reason.find("2 of 16 elements differ") != std::string::npos);
}

TEST_CASE("relative tolerance scales with the reference") {
  const auto expected = at::full({3}, 1000.0);
  CHECK(compare_outputs({expected}, {expected + 0.05}, kFp32).ok);   // 0.05 <= 1e-4 + 0.1
  CHECK(!compare_outputs({expected}, {expected + 0.2}, kFp32).ok);
}

TEST_CASE("NaN passes only where the reference has NaN; infinities must agree") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const auto expected = at::tensor({1.0, nan, inf}, at::kFloat);
  CHECK(compare_outputs({expected}, {expected.clone()}, kFp32).ok);
  CHECK(!compare_outputs({expected}, {at::tensor({nan, nan, inf}, at::kFloat)}, kFp32).ok);
  CHECK(!compare_outputs({expected}, {at::tensor({1.0, nan, -inf}, at::kFloat)}, kFp32).ok);
  CHECK(!compare_outputs({expected}, {at::tensor({1.0, 0.0, inf}, at::kFloat)}, kFp32).ok);
}

TEST_CASE("dtype, shape and output count must match") {
  const auto x = at::ones({2, 3});
  auto r = compare_outputs({x}, {x.to(at::kDouble)}, kFp32);
  CHECK(!r.ok);
  CHECK(r.reason.find("dtype") != std::string::npos);
  r = compare_outputs({x}, {x.reshape({3, 2})}, kFp32);
  CHECK(!r.ok);
  CHECK(r.reason.find("shape") != std::string::npos);
  CHECK(!compare_outputs({x}, {x, x}, kFp32).ok);
  // The second output is the one that fails.
  r = compare_outputs({x, x}, {x, x * 2}, kFp32);
  CHECK(r.output_index == 1);
}

TEST_CASE("integer and bool outputs compare exactly") {
  const auto i = at::arange(10);
  CHECK(compare_outputs({i}, {i.clone()}, {1.0, 1.0}).ok);
  CHECK(!compare_outputs({i}, {i + 1}, {1.0, 1.0}).ok);
  const auto b = i > 4;
  CHECK(!compare_outputs({b}, {b.logical_not()}, kFp32).ok);
}

TEST_CASE("non-contiguous outputs compare by value") {
  const auto x = at::randn({6, 4});
  const auto transposed_copy = x.t().contiguous().t();  // same values, other strides
  CHECK(!transposed_copy.is_contiguous());
  CHECK(compare_outputs({x}, {transposed_copy}, kFp32).ok);
}

TEST_CASE("complex outputs compare real and imaginary parts") {
  const auto z = at::complex(at::ones({4}), at::zeros({4}));
  CHECK(compare_outputs({z}, {z.clone()}, kFp32).ok);
  const auto other = at::complex(at::ones({4}), at::ones({4}));  // same real part
  CHECK(!compare_outputs({z}, {other}, kFp32).ok);
}
