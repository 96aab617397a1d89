#include "worker/trial.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <vector>

#include "correctness/trivial_output.hpp"
#include "integrity/tensor_guard.hpp"
#include "worker/phase_clock.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {

std::string to_string(TrialKind kind) {
  switch (kind) {
    case TrialKind::seed: return "seed";
    case TrialKind::alt_distribution: return "alt_distribution";
    case TrialKind::alt_shape: return "alt_shape";
    case TrialKind::post_timing: return "post_timing";
    case TrialKind::timing: return "timing";
  }
  return "seed";
}

TrialBuilder::TrialBuilder(py::module_ torch, py::object device, py::object dtype, py::module_ problem)
    : torch_(std::move(torch)), device_(std::move(device)), dtype_(std::move(dtype)),
      problem_(std::move(problem)) {}

// Calls `fn` with the device as the default device (torch.device is a context manager).
py::object TrialBuilder::with_device(const py::object& fn) const {
  py::object context = device_;
  context.attr("__enter__")();
  py::object out;
  try {
    out = fn();
  } catch (...) {
    context.attr("__exit__")(py::none(), py::none(), py::none());
    throw;
  }
  context.attr("__exit__")(py::none(), py::none(), py::none());
  return out;
}

void TrialBuilder::seed_generators(int seed) const {
  std::vector<at::Device> devices = {at::Device(at::kCPU)};
  const at::Device device(py::str(device_).cast<std::string>());
  if (!device.is_cpu()) devices.push_back(device);
  for (const at::Device& each : devices) {
    at::Generator generator = at::globalContext().defaultGenerator(each);
    // See ATen's note "Acquire lock when using random generators".
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_current_seed(static_cast<uint64_t>(seed));
  }
}

py::object TrialBuilder::build_model(py::handle cls, int seed) const {
  PhaseStep step("build_model");
  seed_generators(seed);
  py::object model = with_device(py::cpp_function([&] {
    py::list init = problem_.attr("get_init_inputs")();
    return cls(*init);
  }));
  return model.attr("to")(py::arg("device") = device_, py::arg("dtype") = dtype_);
}

py::list TrialBuilder::build_inputs(int seed) const {
  PhaseStep step("build_inputs");
  seed_generators(seed + 1);
  py::list raw = with_device(problem_.attr("get_inputs"));
  py::list inputs;
  for (auto item : raw) {
    if (!is_tensor(item)) {
      inputs.append(item);
      continue;
    }
    py::object tensor = item.attr("to")(device_);
    if (py::bool_(tensor.attr("is_floating_point")())) tensor = tensor.attr("to")(dtype_);
    inputs.append(tensor);
  }
  return inputs;
}

py::list TrialBuilder::build_alt_inputs(int seed) const {
  if (py::hasattr(problem_, "get_inputs_alt")) {
    seed_generators(seed + 1);
    py::list raw = with_device(problem_.attr("get_inputs_alt"));
    py::list inputs;
    for (auto item : raw) {
      py::object value = py::reinterpret_borrow<py::object>(item);
      if (is_tensor(item)) {
        value = value.attr("to")(device_);
        if (py::bool_(value.attr("is_floating_point")())) value = value.attr("to")(dtype_);
      }
      inputs.append(value);
    }
    return inputs;
  }
  py::list base = build_inputs(seed);
  seed_generators(seed + 2);
  py::list inputs;
  for (auto item : base) {
    if (!is_tensor(item) || !py::bool_(item.attr("is_floating_point")())) {
      inputs.append(item);
      continue;
    }
    py::object x = py::reinterpret_borrow<py::object>(item);
    py::object scale = x.attr("abs")().attr("float")().attr("mean")();
    if (!(scale.attr("item")().cast<double>() > 0)) scale = py::float_(1.0);
    // In place where it can be: full-size inputs are GBs, and every temporary is one more copy
    // on the device (docs/memory.md). Same draws in the same order as before.
    py::object magnitude = torch_.attr("randn_like")(x);
    magnitude.attr("abs_")();
    magnitude.attr("mul_")(scale);
    {
      py::object outliers =
          torch_.attr("rand_like")(x, py::arg("dtype") = torch_.attr("float32")).attr("__lt__")(0.01);
      magnitude.attr("__setitem__")(outliers, magnitude.attr("__getitem__")(outliers) * py::float_(10.0));
    }
    magnitude.attr("mul_")(torch_.attr("sign")(x));
    inputs.append(magnitude.attr("to")(x.attr("dtype")));
  }
  return inputs;
}

py::tuple TrialBuilder::fresh_copies(const py::list& inputs) const {
  py::tuple copies(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    copies[i] = is_tensor(inputs[i]) ? inputs[i].attr("to")(device_, py::arg("copy") = true) : inputs[i];
  return copies;
}

at::Tensor TrialBuilder::to_host(const at::Tensor& t) {
  if (!t.is_cuda()) return t.detach().to(at::Device(at::kCPU), t.scalar_type(), false, /*copy=*/true);
  // Pageable, as before (pinned memory is mapped into the device's address space), but into pages
  // touched first: copied into fresh pages, the driver takes each page fault inside the copy, and
  // 4 GiB took 3.24 s (1.3 GB/s) on the H100 against 0.51 s zero-filled first on torch's threads
  // (2026-12-06, benchmarks/kernelbench/host_copy.py; docs/memory.md).
  at::Tensor host = at::empty(t.sizes(), t.options().device(at::kCPU));
  host.zero_();
  host.copy_(t.detach());
  return host;
}

void TrialBuilder::keep_on_host(Trial& trial, bool with_model) const {
  py::object host = torch_.attr("device")("cpu");
  py::list moved;
  for (auto item : trial.inputs)
    moved.append(is_tensor(item) ? to_python(to_host(to_tensor(item))) : py::reinterpret_borrow<py::object>(item));
  trial.inputs = moved;
  if (with_model) trial.model.attr("to")(host);
}

long long TrialBuilder::tensor_bytes(const py::list& inputs) {
  long long bytes = 0;
  for (auto item : inputs)
    if (is_tensor(item)) bytes += static_cast<long long>(to_tensor(item).nbytes());
  return bytes;
}

long long TrialBuilder::weight_bytes(const py::object& model) {
  long long bytes = 0;
  for (const char* what : {"parameters", "buffers"})
    if (py::hasattr(model, what))
      for (auto t : model.attr(what)()) bytes += static_cast<long long>(to_tensor(t).nbytes());
  return bytes;
}

Trial TrialBuilder::run_reference(TrialKind kind, int seed, py::object model, py::list inputs,
                                  bool poison_freed) const {
  Trial trial;
  trial.kind = kind;
  trial.seed = seed;
  trial.model_seed = seed;
  trial.model = std::move(model);
  trial.inputs = std::move(inputs);
  std::optional<PhaseStep> step(std::in_place, "input_copies");
  py::tuple args = fresh_copies(trial.inputs);
  std::vector<at::Tensor> outputs;
  try {
    step.emplace("model_call");
    py::object output = trial.model(*args);
    FlatOutputs flat = flatten_outputs(output);
    // Where the outputs are, before they leave (trivial_output.hpp); on CUDA its reading waits
    // for the call's kernels.
    for (const auto& t : flat.tensors) trial.expected_max_abs.push_back(largest_magnitude(t));
    // Pageable host memory (not pinned: pinned memory is mapped into the device's address space).
    step.emplace("expected_to_host");
    for (auto& t : flat.tensors) trial.expected.push_back(to_host(t));
    trial.structure = flat.structure;
    trial.output_types = flat.types;
    outputs = std::move(flat.tensors);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error,
                  fmt::format("the reference problem failed ({} trial, seed {})", to_string(kind), seed),
                  {{"traceback", describe_python_error(e)}}};
  } catch (const std::invalid_argument& e) {
    throw Verdict{Status::problem_error, e.what()};
  }
  step.emplace("mutation_check");
  for (std::size_t i = 0; i < args.size(); ++i)
    trial.reference_mutates.push_back(is_tensor(args[i]) &&
                                      !exactly_equal(to_tensor(args[i]), to_tensor(trial.inputs[i])));
  step.reset();
  if (!poison_freed) return trial;
  PhaseStep poisoning("poison");
  // Outputs that share memory with the model's weights or the pristine inputs stay intact.
  std::vector<at::Tensor> keep;
  for (const char* what : {"parameters", "buffers"})
    for (auto t : trial.model.attr(what)()) keep.push_back(to_tensor(t));
  for (auto item : trial.inputs)
    if (is_tensor(item)) keep.push_back(to_tensor(item));
  for (const auto& out : outputs) {
    bool shared = false;
    for (const auto& k : keep) shared = shared || same_storage(out, k);
    if (!shared) poison(out);
  }
  for (auto item : args)
    if (is_tensor(item)) poison(to_tensor(item));
  return trial;
}

nlohmann::json TrialBuilder::set_constants(const nlohmann::json& constants) const {
  nlohmann::json previous = nlohmann::json::object();
  for (const auto& [name, value] : constants.items()) {
    if (!py::hasattr(problem_, name.c_str()))
      throw Verdict{Status::problem_error,
                    fmt::format("sizes: the problem file has no constant `{}` to override", name)};
    py::object old = problem_.attr(name.c_str());
    if (py::isinstance<py::int_>(old)) previous[name] = old.cast<long long>();
    else if (py::isinstance<py::float_>(old)) previous[name] = old.cast<double>();
    if (value.is_number_integer())
      problem_.attr(name.c_str()) = value.get<long long>();
    else
      problem_.attr(name.c_str()) = value.get<double>();
  }
  return previous;
}

}  // namespace kbench
