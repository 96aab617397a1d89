#pragma once
// Fresh input values for every warm-up and timed call (docs/threat-model.md, "content-keyed
// caches"): before each call, outside the timed interval, the problem's own get_inputs() under
// a seed drawn from the OS's entropy, copied into that call's buffers in place (same tensors:
// addresses, shapes, strides, order and count unchanged, so checked and timed calls stay
// indistinguishable). After the call's output is fixed and sampled (integrity/call_audit.hpp,
// `take`), the trusted reference model runs on a pristine copy of those values: its outputs are
// the expected values, and they exist only while harness code runs; `release` poisons them.
// The pristine copy, out of reach of the candidate's kernels and of its Python (C++ tensors, no
// Python object): on the CPU a host copy; on a GPU, where a host round trip of every input would
// cost ~20 ms per call at 128 MiB, get_inputs() is run again under the seed after the call,
// and 1024 random elements of each input, copied to the host when the values were made, must
// match bit for bit (a get_inputs() that is not a function of its seed gets host copies). The reference's weights are on the
// device, within the candidate's reach (a zeroed weight makes the expected output trivial), so
// before every reference call 1024 random elements of each are compared bit for bit with a
// host copy taken before the import: a rewrite of >= 0.7% of a weight is caught with
// probability >= 99.9% per call (docs/threat-model.md).
#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "integrity/model_seal.hpp"
#include "integrity/sampled_comparison.hpp"
#include "worker/trial.hpp"

namespace kbench {

// What differs between two input lists that should have one layout (same count, tensors with
// equal dtypes, shapes and devices, equal other arguments): "" when nothing does. Timing sets
// whose values may rotate between buffers and fresh draws are both held to it.
std::string layout_mismatch(const pybind11::list& layout, const pybind11::list& built);

// The trusted reference's outputs (flattened, where it computed them) on `args`; a Verdict
// `problem_error` naming `inputs` ("fresh timing inputs (seed 12)") when it raises or returns
// something that is not tensors. The judge's timing witness calls it too (worker_entry.cpp).
std::vector<at::Tensor> reference_outputs_on(const pybind11::object& reference, const pybind11::tuple& args,
                                             const std::string& inputs);

class FreshInputs {
 public:
  // One call's values: their seed, and per input (undefined for non-tensors) a host copy, or
  // on a GPU the elements that the rebuild must reproduce.
  struct Draw {
    long long seed = -1;
    std::vector<at::Tensor> pristine;
    std::vector<TakenSample> witness;
  };

  // `layout`: a timing set's inputs (what every draw must look like); `reference`: the trusted
  // reference model (the eager baseline's Model, never ModelNew), or None where no reference
  // runs (a blinded candidate's process: refills only). Built before the candidate's import;
  // one draw is built here, twice, to find out whether draws fit the layout and are a function
  // of their seed.
  FreshInputs(const TrialBuilder& builder, pybind11::object reference, const pybind11::list& layout);

  // Why draws cannot stand in for the layout ("" when they can): shapes, dtypes, devices or
  // other arguments that change with the seed, or a get_inputs() that failed.
  [[nodiscard]] const std::string& unusable() const { return unusable_; }
  // The same seed gave the same values twice (input digests, worker/reference_work.hpp): what a
  // process that rebuilds the values from the seed alone needs.
  [[nodiscard]] bool function_of_seed() const { return function_of_seed_; }
  // Where the reference's inputs come from: "rebuilt from the seed" or "host copies".
  [[nodiscard]] std::string pristine_source() const { return rebuild_ ? "rebuilt from the seed" : "host copies"; }

  // New values into `buffer`'s tensors, in place. Throws a `problem_error` Verdict when the
  // problem builds inputs that do not fit the layout.
  Draw refill(const pybind11::tuple& buffer) const;
  // The same under a given seed (a blinded candidate's, exec/call_reveal.hpp; < 0: one drawn
  // here); without `pristine` nothing is kept for a reference run here.
  Draw refill(const pybind11::tuple& buffer, long long seed, bool pristine) const;
  // The reference's outputs (flattened) on device copies of the draw. A Verdict `problem_error`
  // when the reference raises; `rejected` (timed_call_check) when its weights were changed.
  std::vector<at::Tensor> reference_outputs(const Draw& draw);
  // The judge's side of a blinded candidate (worker/judge.hpp), in a trusted process: the
  // reference's outputs (flattened) on the inputs built from `seed`. Verdicts as above.
  std::vector<at::Tensor> expected_outputs(long long seed);
  // The last reference outputs and input copies overwritten (stale memory), then dropped.
  void release();

 private:
  pybind11::list build(long long seed) const;  // a Verdict problem_error when it fails or misfits
  // The reference as it was before the import: its weights (timed_call_check), its module
  // tree, hooks and call path (monkeypatch, integrity/model_seal.hpp). A rejection when any changed.
  void check_reference() const;
  // The reference on `args` (the values of `seed`), its outputs kept for release(). Verdicts as
  // reference_outputs.
  std::vector<at::Tensor> call_reference(const pybind11::tuple& args, long long seed);

  const TrialBuilder& builder_;
  pybind11::object reference_;
  pybind11::list layout_;
  std::vector<at::Tensor> keep_;  // the reference's weights: never poisoned
  // What check_reference compares: the parameters (and the buffers of a model in eval mode,
  // which forward does not update), with their host copies.
  std::vector<std::pair<at::Tensor, at::Tensor>> weights_;
  std::optional<ModelSeal> seal_;  // the reference's modules, hooks and call path before the import
  std::vector<at::Tensor> last_;  // the last reference call's outputs and input copies
  std::string unusable_;
  bool function_of_seed_ = false;
  bool rebuild_ = false;  // GPU and get_inputs() a function of its seed: rebuilt, not copied
};

}  // namespace kbench
