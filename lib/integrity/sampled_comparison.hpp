#pragma once
// The check of every warm-up and timed call (docs/integrity.md, `timed_call_check`): `samples`
// elements of an output, at flat indices drawn *after* the call from the OS's entropy, compared
// with the expected output under compare_outputs' rules (NaN only where NaN is expected, Inf only
// the same Inf, integers exactly). Indices are uniform with replacement, so a call that is wrong
// on a fraction g of its elements escapes with probability exactly (1 - g)^samples.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "correctness/output_comparison.hpp"

namespace kbench {

struct SampledComparison {
  ComparisonResult result;         // on the sampled elements; reason names no output index
  int64_t elements_compared = 0;
  int64_t bad_count = 0;           // sampled elements that differ
  int64_t bad_flat_index = -1;     // flat index into the output of the first one
  double expected_value = 0;       // at bad_flat_index (real part for complex types)
  double actual_value = 0;
};

// `expected` on the host; `actual` on any device, any strides. Dtype and shape must match
// exactly. An output of at most `samples` elements is compared whole.
SampledComparison compare_sampled(const at::Tensor& expected, const at::Tensor& actual, int64_t samples,
                                  const Tolerance& tolerance);

// One output's sampled elements, taken to the host before anything expected exists (fresh
// values: the reference runs only after the candidate's output is fixed, timing_session.hpp).
struct TakenSample {
  at::Tensor indices;  // flat indices into the output; undefined when the output was taken whole
  at::Tensor values;   // on the host, flat
  int64_t numel = 0;
};

// `samples` elements of `actual` at indices drawn now (the whole output when it has at most
// `samples` elements), copied to the host.
TakenSample take_sample(const at::Tensor& actual, int64_t samples);
// `expected` (any device; the same dtype and shape as the output the sample was taken from)
// compared with the taken elements, under compare_sampled's rules and with its report.
SampledComparison compare_taken(const at::Tensor& expected, const TakenSample& taken, const Tolerance& tolerance);

// `count` flat indices uniform over [0, numel), from a generator seeded by std::random_device at
// this call: nothing the candidate ran before can know them.
at::Tensor random_flat_indices(int64_t numel, int64_t count);

}  // namespace kbench
