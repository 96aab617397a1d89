#include "worker/fresh_inputs.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <random>

#include "exec/call_reveal.hpp"
#include "integrity/call_audit.hpp"
#include "integrity/sampled_comparison.hpp"
#include "integrity/tensor_guard.hpp"
#include "worker/python_runtime.hpp"
#include "worker/reference_work.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// Seeds of fresh values: [1.1e9, 2.1e9) (exec/call_reveal.hpp); build_inputs adds 1, still an int.
long long draw_seed() {
  std::random_device entropy;  // getrandom(2): nothing in the process predicts it
  return kFirstFreshSeed + static_cast<long long>(entropy() % kFreshSeeds);
}

}  // namespace

FreshInputs::FreshInputs(const TrialBuilder& builder, py::object reference, const py::list& layout)
    : builder_(builder), reference_(std::move(reference)), layout_(layout) {
  for (const char* what : {"parameters", "buffers"}) {
    if (reference_.is_none() || !py::hasattr(reference_, what)) continue;
    // Training mode: BatchNorm's running statistics change with every forward, legitimately.
    const bool checked = std::string(what) == "parameters" || !py::bool_(py::getattr(reference_, "training", py::bool_(true)));
    for (auto item : reference_.attr(what)()) {
      const at::Tensor t = to_tensor(item);
      keep_.push_back(t);
      if (checked && t.numel() > 0)
        weights_.emplace_back(t, t.detach().to(at::Device(at::kCPU), t.scalar_type(), false, /*copy=*/true));
    }
  }
  if (!reference_.is_none()) seal_.emplace(reference_);
  try {
    const long long seed = draw_seed();
    const py::list once = builder_.build_inputs(int(seed));
    unusable_ = layout_mismatch(layout_, once);
    bool on_device = false;
    for (auto item : layout_) on_device = on_device || (is_tensor(item) && to_tensor(item).is_cuda());
    if (unusable_.empty()) {
      // Built twice under one seed: the same values (the digest a rebuilt trial is held to), or
      // neither a GPU rebuild nor another process (a blinded candidate's judge) can reproduce them.
      const py::list again = builder_.build_inputs(int(seed));
      function_of_seed_ = true;
      for (std::size_t i = 0; i < once.size(); ++i)
        function_of_seed_ = function_of_seed_ && input_digest(once[i]) == input_digest(again[i]);
      rebuild_ = on_device && function_of_seed_;
    }
  } catch (const py::error_already_set& e) {
    unusable_ = "get_inputs() failed under a fresh seed: " + describe_python_error(e, 300);
  }
}

py::list FreshInputs::build(long long seed) const {
  py::list built;
  try {
    built = builder_.build_inputs(int(seed));
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, fmt::format("get_inputs() failed under fresh seed {}", seed),
                  {{"traceback", describe_python_error(e)}}};
  }
  if (const std::string why = layout_mismatch(layout_, built); !why.empty())
    throw Verdict{Status::problem_error, fmt::format("fresh timing inputs (seed {}): {}", seed, why)};
  return built;
}

std::string layout_mismatch(const py::list& layout, const py::list& built) {
  if (built.size() != layout.size())
    return fmt::format("get_inputs() returned {} inputs under a fresh seed, {} before", built.size(), layout.size());
  for (std::size_t i = 0; i < built.size(); ++i) {
    const py::handle a = layout[i], b = built[i];
    if (is_tensor(a) != is_tensor(b)) return fmt::format("input {} is a tensor under one seed only", i);
    if (!is_tensor(a)) {
      if (!a.equal(b)) return fmt::format("input {} (not a tensor) changes with the seed", i);
      continue;
    }
    const at::Tensor x = to_tensor(a), y = to_tensor(b);
    if (x.scalar_type() != y.scalar_type() || !x.sizes().equals(y.sizes()) || x.device() != y.device())
      return fmt::format("input {}'s dtype, shape or device changes with the seed", i);
  }
  return "";
}

FreshInputs::Draw FreshInputs::refill(const py::tuple& buffer) const { return refill(buffer, draw_seed(), true); }

FreshInputs::Draw FreshInputs::refill(const py::tuple& buffer, long long seed, bool pristine) const {
  Draw draw;
  draw.seed = seed >= 0 ? seed : draw_seed();
  const py::list built = build(draw.seed);
  for (std::size_t i = 0; i < built.size(); ++i) {
    draw.pristine.emplace_back();
    draw.witness.emplace_back();
    if (!is_tensor(built[i])) continue;
    const at::Tensor values = to_tensor(built[i]);
    to_tensor(buffer[i]).copy_(values);
    if (!pristine) continue;
    if (rebuild_)
      draw.witness.back() = take_sample(values, kCheckedElementsPerCall);
    else  // pageable host memory, never pinned (pinned memory is mapped into the device's space)
      draw.pristine.back() = values.to(at::Device(at::kCPU), values.scalar_type(), false, /*copy=*/true);
  }
  return draw;
}

void FreshInputs::check_reference() const {
  if (seal_) {
    const auto changed = seal_->changed();
    if (!changed.empty()) {
      std::string what;
      for (const auto& c : changed) what += (what.empty() ? "" : "; ") + c;
      throw rejection("monkeypatch",
                      fmt::format("the reference model's modules, hooks or call path changed while the candidate was "
                                  "timed ({})",
                                  what),
                      {{"reference_model", changed}});
    }
  }
  for (std::size_t w = 0; w < weights_.size(); ++w) {
    const auto& [weight, copy] = weights_[w];
    const TakenSample now = take_sample(weight, kCheckedElementsPerCall);
    const at::Tensor before =
        now.indices.defined() ? at::take(copy, now.indices) : copy.reshape(-1);
    if (!exactly_equal(before, now.values))
      throw rejection("timed_call_check",
                      fmt::format("the reference model's weight {} was changed while the candidate was timed", w),
                      {{"weight_index", w}});
  }
}

std::vector<at::Tensor> FreshInputs::reference_outputs(const Draw& draw) {
  release();
  check_reference();
  py::tuple args(layout_.size());
  const py::list rebuilt = rebuild_ ? build(draw.seed) : py::list();
  for (std::size_t i = 0; i < layout_.size(); ++i) {
    if (!is_tensor(layout_[i])) {
      args[i] = layout_[i];
      continue;
    }
    at::Tensor copy;
    if (rebuild_) {
      copy = to_tensor(rebuilt[i]);
      // The values rebuilt are those the call got, or the expected output would be for others
      // (e.g. a get_inputs or generator tampered with during timing).
      const TakenSample& made = draw.witness.at(i);
      const at::Tensor now = made.indices.defined() ? at::take(copy, made.indices.to(copy.device())).to(at::kCPU)
                                                    : copy.reshape(-1).to(at::kCPU);
      if (!exactly_equal(now, made.values))
        throw rejection("timed_call_check",
                        fmt::format("input {} rebuilt from fresh seed {} differs from the values the call got", i,
                                    draw.seed),
                        {{"input_index", i}});
    } else {
      copy = draw.pristine.at(i).to(to_tensor(layout_[i]).device(), draw.pristine[i].scalar_type(), false,
                                    /*copy=*/true);
    }
    last_.push_back(copy);
    args[i] = to_python(copy);
  }
  return call_reference(args, draw.seed);
}

std::vector<at::Tensor> reference_outputs_on(const py::object& reference, const py::tuple& args,
                                             const std::string& inputs) {
  try {
    return flatten_outputs(reference(*args)).tensors;
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "the reference problem failed on " + inputs,
                  {{"traceback", describe_python_error(e)}}};
  } catch (const std::invalid_argument& e) {
    throw Verdict{Status::problem_error, e.what()};
  }
}

std::vector<at::Tensor> FreshInputs::call_reference(const py::tuple& args, long long seed) {
  std::vector<at::Tensor> outputs =
      reference_outputs_on(reference_, args, fmt::format("fresh timing inputs (seed {})", seed));
  last_.insert(last_.end(), outputs.begin(), outputs.end());
  return outputs;
}

std::vector<at::Tensor> FreshInputs::expected_outputs(long long seed) {
  release();
  check_reference();
  const py::list inputs = build(seed);
  py::tuple args(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    args[i] = inputs[i];
    if (is_tensor(inputs[i])) last_.push_back(to_tensor(inputs[i]));
  }
  return call_reference(args, seed);
}

void FreshInputs::release() {
  for (const auto& t : last_) {
    bool shared = false;
    for (const auto& k : keep_) shared = shared || same_storage(t, k);
    if (!shared) poison(t);
  }
  last_.clear();
}

}  // namespace kbench
