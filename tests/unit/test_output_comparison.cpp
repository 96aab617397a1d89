// Correctness decisions on ATen CPU tensors (no Python involved).
#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "catch.hpp"
#include "correctness/output_comparison.hpp"
#include "integrity/sampled_comparison.hpp"

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

// The check of every timed call (integrity/sampled_comparison.hpp).
TEST_CASE("sampled comparison: honest outputs pass, any strides, NaN and Inf rules kept") {
  const auto expected = at::randn({64, 64});
  CHECK(compare_sampled(expected, expected.clone(), 1024, kFp32).result.ok);
  CHECK(compare_sampled(expected, expected.t().contiguous().t(), 1024, kFp32).result.ok);  // strided copy
  auto with_nan = expected.clone();
  with_nan.index_put_({0}, NAN);
  with_nan.index_put_({1}, INFINITY);
  CHECK(compare_sampled(with_nan, with_nan.clone(), 1024, kFp32).result.ok);
  // 4096 elements, 1024 sampled: a row of NaN (1.6%) escapes with (1-1/64)^1024 ~ 1e-7.
  auto nan_row = expected.clone();
  nan_row.index_put_({5}, NAN);
  const auto r = compare_sampled(expected, nan_row, 1024, kFp32);
  REQUIRE(!r.result.ok);
  CHECK(r.elements_compared == 1024);
  CHECK(r.bad_flat_index / 64 == 5);
  CHECK(r.bad_count > 0);
  CHECK(r.expected_value == Catch::Approx(expected.reshape(-1)[r.bad_flat_index].item<double>()));
  CHECK(r.result.reason.find("sampled elements differ") != std::string::npos);
}

TEST_CASE("sampled comparison: integers exact, small outputs whole, dtype and shape exact") {
  const auto ints = at::arange(100000, at::kLong);
  auto off = ints.clone();
  off.index_put_({at::indexing::Slice(0, 50000)}, 0);  // half wrong: caught for sure
  CHECK(!compare_sampled(ints, off, 1024, kFp32).result.ok);
  auto one = at::ones({8});
  auto wrong = one.clone();
  wrong.index_put_({7}, 2.0);
  const auto small = compare_sampled(one, wrong, 1024, kFp32);
  CHECK(!small.result.ok);
  CHECK(small.elements_compared == 8);
  CHECK(small.bad_flat_index == 7);
  CHECK(small.actual_value == 2.0);
  CHECK(!compare_sampled(one, one.to(at::kDouble), 1024, kFp32).result.ok);
  CHECK(!compare_sampled(at::ones({4096}), at::ones({64, 64}), 1024, kFp32).result.ok);
}

// Fresh values (worker/fresh_inputs.hpp): the sample is taken before the expected output exists.
TEST_CASE("taken samples: fixed when taken, judged later against the expected output") {
  const auto expected = at::randn({64, 64});
  auto actual = expected.clone();
  const TakenSample taken = take_sample(actual, 1024);
  CHECK(taken.indices.numel() == 1024);
  CHECK(taken.values.numel() == 1024);
  actual.fill_(NAN);  // what the output becomes afterwards (poisoned, a late write) changes nothing
  CHECK(compare_taken(expected, taken, kFp32).result.ok);
  const auto wrong = compare_taken(at::zeros({64, 64}), taken, kFp32);
  REQUIRE(!wrong.result.ok);
  CHECK(wrong.elements_compared == 1024);
  CHECK(wrong.result.reason.find("sampled elements differ") != std::string::npos);
  CHECK(wrong.expected_value == 0.0);
  // Small outputs are taken whole, and judged element by element.
  auto one = at::ones({8});
  const TakenSample whole = take_sample(one, 1024);
  CHECK(!whole.indices.defined());
  one.fill_(NAN);  // taken whole, still a copy
  auto two = at::ones({8});
  two.index_put_({3}, 2.0);
  const auto r = compare_taken(two, whole, kFp32);
  REQUIRE(!r.result.ok);
  CHECK(r.bad_flat_index == 3);
  CHECK(r.actual_value == 1.0);
}

TEST_CASE("sampled comparison: indices are uniform and differ from call to call") {
  const auto a = random_flat_indices(10, 100000);
  CHECK(a.min().item<int64_t>() == 0);
  CHECK(a.max().item<int64_t>() == 9);
  const double mean = a.to(at::kDouble).mean().item<double>();
  CHECK(mean == Catch::Approx(4.5).margin(0.05));
  CHECK(!at::equal(random_flat_indices(1LL << 40, 16), random_flat_indices(1LL << 40, 16)));
}

TEST_CASE("the one-element rule agrees with compare_outputs on every kind of value") {
  const std::vector<double> values = {0.0, 1.0, -1.0, 1.0 + 5e-5, 1.0 + 3e-4, 1e6, 1e6 + 50, 1e6 + 200,
                                      1e-30, NAN, INFINITY, -INFINITY, std::numeric_limits<double>::max()};
  for (double e : values)
    for (double a : values) {
      INFO(e << " vs " << a);
      const auto te = at::full({1}, e, at::kDouble), ta = at::full({1}, a, at::kDouble);
      CHECK(floating_element_matches(e, a, kFp32) == compare_outputs({te}, {ta}, kFp32).ok);
      CHECK(compare_sampled(te, ta, 1024, kFp32).result.ok == compare_outputs({te}, {ta}, kFp32).ok);
    }
}

TEST_CASE("the host single pass reports what the chunked ATen comparison reports, field for field") {
  // Values that exercise every branch: near and beyond tolerance, NaN and infinities on both
  // sides, zeros under a relative error, in each dtype the single pass covers.
  at::manual_seed(20261204);
  const int64_t n = 5000;
  at::Tensor expected = at::randn({n}, at::kDouble) * 10;
  at::Tensor actual = expected + at::randn({n}, at::kDouble) * 2e-4;
  expected.index_put_({at::indexing::Slice(0, 40)}, NAN);
  actual.index_put_({at::indexing::Slice(20, 60)}, NAN);
  expected.index_put_({at::indexing::Slice(100, 110)}, INFINITY);
  actual.index_put_({at::indexing::Slice(105, 115)}, INFINITY);
  actual.index_put_({at::indexing::Slice(200, 210)}, -INFINITY);
  expected.index_put_({at::indexing::Slice(300, 320)}, 0.0);
  for (const auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    INFO(c10::toString(dtype));
    const at::Tensor e = expected.to(dtype), a = actual.to(dtype);
    for (const bool same : {false, true}) {
      const at::Tensor got = same ? e.clone() : a;
      unsetenv("KBENCH_COMPARISON");
      const ComparisonResult pass = compare_outputs({e.view({50, 100})}, {got.view({50, 100})}, kFp32);
      setenv("KBENCH_COMPARISON", "aten", 1);
      const ComparisonResult chunks = compare_outputs({e.view({50, 100})}, {got.view({50, 100})}, kFp32);
      unsetenv("KBENCH_COMPARISON");
      CHECK(pass.ok == chunks.ok);
      CHECK(pass.ok == same);
      CHECK(pass.reason == chunks.reason);
      CHECK(pass.output_index == chunks.output_index);
      CHECK(pass.max_abs_error == chunks.max_abs_error);
      CHECK(pass.max_rel_error == chunks.max_rel_error);
      CHECK(pass.mismatched_fraction == chunks.mismatched_fraction);
      CHECK(pass.first_bad_index == chunks.first_bad_index);
    }
  }
}
