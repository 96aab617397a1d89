#pragma once
// Fresh input values for every warm-up and timed call (docs/threat-model.md, "content-keyed
// caches"): before each call, outside the timed interval, the problem's own get_inputs() under
// a seed drawn from the OS's entropy, copied into that call's buffers in place (same tensors:
// addresses, shapes, strides, order and count unchanged, so checked and timed calls stay
// indistinguishable), and a pristine copy kept in pageable host memory, out of reach of the
// candidate's kernels and of its Python (a C++ clone has no Python object). After the call's
// output is fixed and sampled (integrity/call_audit.hpp, `take`), the trusted reference model
// runs on a device copy of those values: its outputs are the expected values, and they exist
// only while harness code runs; `release` poisons them.
#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "worker/trial.hpp"

namespace kbench {

class FreshInputs {
 public:
  // One call's values: their seed and a host copy of every tensor input (undefined for the
  // other arguments, which are the layout's).
  struct Draw {
    long long seed = -1;
    std::vector<at::Tensor> pristine;
  };

  // `layout`: a timing set's inputs (what every draw must look like); `reference`: the trusted
  // reference model (the eager baseline's Model, never ModelNew). Built before the candidate's
  // import; one draw is built here to find out whether draws fit the layout.
  FreshInputs(const TrialBuilder& builder, pybind11::object reference, const pybind11::list& layout);

  // Why draws cannot stand in for the layout ("" when they can): shapes, dtypes, devices or
  // other arguments that change with the seed, or a get_inputs() that failed.
  [[nodiscard]] const std::string& unusable() const { return unusable_; }

  // New values into `buffer`'s tensors, in place. Throws a `problem_error` Verdict when the
  // problem builds inputs that do not fit the layout.
  Draw refill(const pybind11::tuple& buffer) const;
  // The reference's outputs (flattened) on device copies of the draw. A Verdict `problem_error`
  // when the reference raises.
  std::vector<at::Tensor> reference_outputs(const Draw& draw);
  // The last reference outputs and input copies overwritten (stale memory), then dropped.
  void release();

 private:
  // Tensors of `built` that fit `layout` ("" when all do, else what differs).
  std::string mismatch(const pybind11::list& built) const;

  const TrialBuilder& builder_;
  pybind11::object reference_;
  pybind11::list layout_;
  std::vector<at::Tensor> keep_;  // the reference's weights: never poisoned
  std::vector<at::Tensor> last_;  // the last reference call's outputs and input copies
  std::string unusable_;
};

}  // namespace kbench
