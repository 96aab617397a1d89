#pragma once
// Tensor-level guards of the trust boundary: exact (NaN-aware) equality, to prove inputs were
// not modified, and poisoning of buffers the harness is about to free, so that a candidate
// cannot read expected values back out of recycled allocator blocks.
#include <ATen/core/Tensor.h>

namespace kbench {

// Same dtype, shape and values bit for bit, treating NaN as equal to NaN.
bool exactly_equal(const at::Tensor& a, const at::Tensor& b);

// Overwrites the whole storage behind `t` in place: NaN for floating and complex types, the
// type's max for integers, true for bool. Views poison their base's storage.
void poison(const at::Tensor& t);

// True if the two tensors' storages are the same allocation.
bool same_storage(const at::Tensor& a, const at::Tensor& b);

}  // namespace kbench
