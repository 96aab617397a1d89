#include "integrity/sampled_comparison.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace kbench {
namespace {

double as_double(const at::Tensor& scalar) {
  const at::Tensor t = at::isComplexType(scalar.scalar_type()) ? at::real(scalar) : scalar;
  return t.to(at::kDouble).item<double>();
}

}  // namespace

at::Tensor random_flat_indices(int64_t numel, int64_t count) {
  std::random_device entropy;  // RDRAND or getrandom(2): not derivable from process state
  std::seed_seq seed{entropy(), entropy(), entropy(), entropy()};
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int64_t> pick(0, numel - 1);
  at::Tensor indices = at::empty({count}, at::kLong);
  auto* out = indices.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) out[i] = pick(generator);
  return indices;
}

namespace {

// compare_outputs' element rules over two equal-length host vectors, one element at a time: a
// few microseconds for 1024 elements where the vectorised comparison takes ~30 ATen calls. Only
// a failure pays for compare_outputs' detailed report.
bool all_match(const at::Tensor& want, const at::Tensor& got, const Tolerance& tolerance) {
  at::Tensor e = want.contiguous(), a = got.contiguous();
  if (at::isComplexType(e.scalar_type())) {
    e = at::view_as_real(e.resolve_conj()).reshape(-1);
    a = at::view_as_real(a.resolve_conj()).reshape(-1);
  }
  if (at::isFloatingType(e.scalar_type())) {
    e = e.to(at::kDouble).contiguous();
    a = a.to(at::kDouble).contiguous();
    const double* pe = e.data_ptr<double>();
    const double* pa = a.data_ptr<double>();
    for (int64_t i = 0; i < e.numel(); ++i)
      if (!floating_element_matches(pe[i], pa[i], tolerance)) return false;
    return true;
  }
  e = e.to(at::kLong).contiguous();  // integers and bools: exactly
  a = a.to(at::kLong).contiguous();
  return std::equal(e.data_ptr<int64_t>(), e.data_ptr<int64_t>() + e.numel(), a.data_ptr<int64_t>());
}

}  // namespace

TakenSample take_sample(const at::Tensor& actual, int64_t samples) {
  TakenSample taken;
  taken.numel = actual.numel();
  if (taken.numel <= samples) {
    // A copy even on the host: the output is poisoned after it is taken.
    const at::Tensor flat = actual.detach().reshape(-1);
    taken.values = flat.to(at::Device(at::kCPU), flat.scalar_type(), false, /*copy=*/true);
    return taken;
  }
  taken.indices = random_flat_indices(taken.numel, samples);
  // take() reads in logical row-major order whatever the strides: a gather kernel and a copy
  // of `samples` elements back to the host.
  taken.values = at::take(actual.detach(), taken.indices.to(actual.device())).to(at::kCPU);
  return taken;
}

SampledComparison compare_taken(const at::Tensor& expected, const TakenSample& taken, const Tolerance& tolerance) {
  SampledComparison s;
  const bool whole = !taken.indices.defined();
  const at::Tensor want = whole ? expected.reshape(-1).to(at::kCPU)
                                : at::take(expected, taken.indices.to(expected.device())).to(at::kCPU);
  const at::Tensor& got = taken.values;
  s.elements_compared = want.numel();
  if (s.elements_compared == 0 || all_match(want, got, tolerance)) return s;
  s.result = compare_outputs({want}, {got}, tolerance);
  if (s.result.ok) return s;  // cannot happen while the two rules agree
  const int64_t k = s.result.first_bad_index;
  s.bad_count = int64_t(s.result.mismatched_fraction * double(s.elements_compared) + 0.5);
  s.bad_flat_index = whole ? k : taken.indices[k].item<int64_t>();
  s.expected_value = as_double(want[k]);
  s.actual_value = as_double(got[k]);
  s.result.first_bad_index = s.bad_flat_index;
  s.result.reason = fmt::format(
      "{} of {} {}elements differ (max abs err {:.3g}); first at flat index {}: expected {:.6g}, got {:.6g} "
      "(atol {:g}, rtol {:g})",
      s.bad_count, s.elements_compared, whole ? "" : "sampled ", s.result.max_abs_error, s.bad_flat_index,
      s.expected_value, s.actual_value, tolerance.atol, tolerance.rtol);
  return s;
}

SampledComparison compare_sampled(const at::Tensor& expected, const at::Tensor& actual, int64_t samples,
                                  const Tolerance& tolerance) {
  if (expected.scalar_type() != actual.scalar_type() || !expected.sizes().equals(actual.sizes())) {
    SampledComparison s;
    s.result = compare_outputs({expected}, {actual}, tolerance);  // reports the dtype or shape
    return s;
  }
  return compare_taken(expected, take_sample(actual, samples), tolerance);
}

}  // namespace kbench
