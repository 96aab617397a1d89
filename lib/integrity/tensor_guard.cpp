#include "integrity/tensor_guard.hpp"

#include <ATen/ATen.h>

namespace kbench {

bool exactly_equal(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || !a.sizes().equals(b.sizes())) return false;
  if (a.numel() == 0) return true;
  const at::Tensor y = b.to(a.device());
  if (at::isFloatingType(a.scalar_type()) || at::isComplexType(a.scalar_type())) {
    at::Tensor ar = a, yr = y;
    if (at::isComplexType(a.scalar_type())) {
      ar = at::view_as_real(a.resolve_conj());
      yr = at::view_as_real(y.resolve_conj());
    }
    return ((ar == yr) | (ar.isnan() & yr.isnan())).all().item<bool>();
  }
  return at::equal(a, y);
}

void poison(const at::Tensor& t) {
  // No data behind the storage (a wrapper subclass's, sized but never allocated): nothing to
  // overwrite, and set_() on it would fault.
  if (!t.defined() || !t.has_storage() || t.storage().nbytes() == 0 || t.storage().data() == nullptr) return;
  // A flat byte view of the whole storage, whatever the tensor's strides and offset.
  const auto bytes = int64_t(t.storage().nbytes());
  at::Tensor raw = at::empty({0}, t.options().dtype(at::kByte));
  raw.set_(t.storage(), 0, {bytes}, {1});
  const auto type = t.scalar_type();
  const auto item = int64_t(t.element_size());
  if (bytes % item != 0) {
    raw.fill_(0xFF);
    return;
  }
  at::Tensor typed = raw.view(type == at::kBool ? at::kByte : type);
  if (at::isFloatingType(type) || at::isComplexType(type)) {
    // A quiet NaN in every lane: 0xFF bytes are a NaN for every IEEE float width.
    raw.fill_(0xFF);
  } else if (type == at::kBool) {
    typed.fill_(1);
  } else {
    raw.fill_(0x7F);  // a large positive value in every integer width (0x7F7F...)
  }
}

bool same_storage(const at::Tensor& a, const at::Tensor& b) {
  if (!a.has_storage() || !b.has_storage()) return false;
  return a.storage().is_alias_of(b.storage());
}

}  // namespace kbench
