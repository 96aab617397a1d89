#include "worker/fresh_inputs.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <random>

#include "integrity/tensor_guard.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// Seeds of fresh values: [1.1e9, 2.1e9), apart from the suite's seeds, the timing sets'
// (5000 + i) and the timing witness's ([1e6, 1.001e9)); build_inputs adds 1, still an int.
constexpr long long kFirstFreshSeed = 1'100'000'000;
constexpr unsigned kFreshSeeds = 1'000'000'000u;

long long draw_seed() {
  std::random_device entropy;  // getrandom(2): nothing in the process predicts it
  return kFirstFreshSeed + static_cast<long long>(entropy() % kFreshSeeds);
}

}  // namespace

FreshInputs::FreshInputs(const TrialBuilder& builder, py::object reference, const py::list& layout)
    : builder_(builder), reference_(std::move(reference)), layout_(layout) {
  for (const char* what : {"parameters", "buffers"})
    if (py::hasattr(reference_, what))
      for (auto t : reference_.attr(what)()) keep_.push_back(to_tensor(t));
  try {
    unusable_ = mismatch(builder_.build_inputs(int(draw_seed())));
  } catch (const py::error_already_set& e) {
    unusable_ = "get_inputs() failed under a fresh seed: " + describe_python_error(e, 300);
  }
}

std::string FreshInputs::mismatch(const py::list& built) const {
  if (built.size() != layout_.size())
    return fmt::format("get_inputs() returned {} inputs under a fresh seed, {} before", built.size(), layout_.size());
  for (std::size_t i = 0; i < built.size(); ++i) {
    const py::handle a = layout_[i], b = built[i];
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

FreshInputs::Draw FreshInputs::refill(const py::tuple& buffer) const {
  Draw draw;
  draw.seed = draw_seed();
  py::list built;
  try {
    built = builder_.build_inputs(int(draw.seed));
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, fmt::format("get_inputs() failed under fresh seed {}", draw.seed),
                  {{"traceback", describe_python_error(e)}}};
  }
  if (const std::string why = mismatch(built); !why.empty())
    throw Verdict{Status::problem_error, fmt::format("fresh timing inputs (seed {}): {}", draw.seed, why)};
  for (std::size_t i = 0; i < built.size(); ++i) {
    if (!is_tensor(built[i])) {
      draw.pristine.emplace_back();
      continue;
    }
    const at::Tensor values = to_tensor(built[i]);
    to_tensor(buffer[i]).copy_(values);
    // Pageable host memory, never pinned (pinned memory is mapped into the device's space).
    draw.pristine.push_back(values.to(at::Device(at::kCPU), values.scalar_type(), false, /*copy=*/true));
  }
  return draw;
}

std::vector<at::Tensor> FreshInputs::reference_outputs(const Draw& draw) {
  release();
  py::tuple args(layout_.size());
  for (std::size_t i = 0; i < layout_.size(); ++i) {
    if (!draw.pristine.at(i).defined()) {
      args[i] = layout_[i];
      continue;
    }
    const at::Tensor copy = draw.pristine[i].to(to_tensor(layout_[i]).device(), draw.pristine[i].scalar_type(),
                                                false, /*copy=*/true);
    last_.push_back(copy);
    args[i] = to_python(copy);
  }
  try {
    FlatOutputs flat = flatten_outputs(reference_(*args));
    last_.insert(last_.end(), flat.tensors.begin(), flat.tensors.end());
    return flat.tensors;
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error,
                  fmt::format("the reference problem failed on fresh timing inputs (seed {})", draw.seed),
                  {{"traceback", describe_python_error(e)}}};
  } catch (const std::invalid_argument& e) {
    throw Verdict{Status::problem_error, e.what()};
  }
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
