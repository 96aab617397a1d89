#include "worker/evaluation.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <fstream>
#include <optional>

#include "check/output_comparison.hpp"
#include "core/version.hpp"
#include "measure/cuda_driver.hpp"
#include "measure/fixed_protocol.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// A failure with the status it earns; thrown inside the evaluation, caught once in run().
struct Verdict {
  Status status;
  std::string message;
  nlohmann::json diagnostics = nlohmann::json::object();
};

// One correctness trial's world: the reference model and pristine inputs for one seed.
struct Trial {
  int seed = 0;
  py::object model;
  py::list inputs;  // pristine; every call gets fresh clones
  std::vector<at::Tensor> expected;  // reference outputs, held only by C++
  std::string structure;
};

Status candidate_fault_status(const py::error_already_set& error, Status otherwise) {
  const std::string type = python_error_type(error);
  if (type.find("CompilationError") != std::string::npos || type.rfind("triton.compiler", 0) == 0)
    return Status::compile_error;
  return otherwise;
}

class Evaluation {
 public:
  explicit Evaluation(const Job& job) : job_(job) {}

  JobResult run() {
    JobResult result;
    result.job = job_;
    try {
      setup_torch();
      load_problem();
      for (int i = 0; i < job_.settings.seeds; ++i) trials_.push_back(make_trial(trial_seed(i)));
      timer_ = make_timer();
      // Reference outputs and baseline times exist before any candidate code is imported, so
      // the candidate cannot tamper with either.
      time_baselines(result);
      load_candidate();
      for (auto& trial : trials_) check_candidate(trial);
      result.diagnostics["correctness"] = {{"seeds_checked", job_.settings.seeds},
                                           {"max_abs_error", max_abs_error_},
                                           {"max_rel_error", max_rel_error_},
                                           {"atol", tolerance_.atol},
                                           {"rtol", tolerance_.rtol}};
      time_variant(result, "candidate", timed_candidate_);
      result.status = Status::ok;
    } catch (const Verdict& verdict) {
      result.status = verdict.status;
      result.message = verdict.message;
      result.diagnostics.update(verdict.diagnostics);
    }
    if (!baseline_notes_.empty()) result.diagnostics["baselines"] = baseline_notes_;
    return result;
  }

 private:
  void setup_torch() {
    try {
      torch_ = py::module_::import("torch");
      torch_.attr("set_grad_enabled")(false);
      // TF32 silently changes fp32 results and speed; pin it off for every variant.
      torch_.attr("backends").attr("cuda").attr("matmul").attr("allow_tf32") = false;
      torch_.attr("backends").attr("cudnn").attr("allow_tf32") = false;
      device_ = torch_.attr("device")(job_.device);
      dtype_ = torch_.attr(job_.settings.dtype.c_str());
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::problem_error, "torch is not usable in the worker",
                    {{"traceback", describe_python_error(e)}}};
    }
    const Tolerance defaults = default_tolerance(job_.settings.dtype);
    tolerance_ = {job_.settings.atol.value_or(defaults.atol),
                  job_.settings.rtol.value_or(defaults.rtol)};
  }

  void load_problem() {
    try {
      problem_ = import_file(job_.problem_file, "kbench_problem");
      for (const char* name : {"Model", "get_inputs", "get_init_inputs"})
        if (!py::hasattr(problem_, name))
          throw Verdict{Status::problem_error,
                        fmt::format("problem file defines no `{}`", name)};
      for (const auto& [name, value] : job_.size_overrides.items()) {
        if (!py::hasattr(problem_, name.c_str()))
          throw Verdict{Status::problem_error,
                        fmt::format("sizes: the problem file has no constant `{}` to override", name)};
        if (value.is_number_integer())
          problem_.attr(name.c_str()) = value.get<long long>();
        else
          problem_.attr(name.c_str()) = value.get<double>();
      }
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::problem_error, "the problem file failed to import",
                    {{"traceback", describe_python_error(e)}}};
    }
  }

  // Builds init args and the model under `seed`, then inputs under a derived seed, all created
  // directly on the device (torch.device as a context manager sets the default device).
  py::object build_model(py::handle cls, int seed) {
    torch_.attr("manual_seed")(seed);
    py::object context = device_;
    context.attr("__enter__")();
    py::object model;
    try {
      py::list init = problem_.attr("get_init_inputs")();
      model = cls(*init);
    } catch (...) {
      context.attr("__exit__")(py::none(), py::none(), py::none());
      throw;
    }
    context.attr("__exit__")(py::none(), py::none(), py::none());
    return model.attr("to")(py::arg("device") = device_, py::arg("dtype") = dtype_);
  }

  py::list build_inputs(int seed) {
    torch_.attr("manual_seed")(seed + 1);
    py::object context = device_;
    context.attr("__enter__")();
    py::list raw;
    try {
      raw = problem_.attr("get_inputs")();
    } catch (...) {
      context.attr("__exit__")(py::none(), py::none(), py::none());
      throw;
    }
    context.attr("__exit__")(py::none(), py::none(), py::none());
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

  static py::tuple fresh_copies(const py::list& inputs) {
    py::tuple copies(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      copies[i] = is_tensor(inputs[i]) ? inputs[i].attr("clone")() : inputs[i];
    return copies;
  }

  Trial make_trial(int seed) {
    Trial trial;
    trial.seed = seed;
    try {
      trial.model = build_model(problem_.attr("Model"), seed);
      trial.inputs = build_inputs(seed);
      py::object output = trial.model(*fresh_copies(trial.inputs));
      FlatOutputs flat = flatten_outputs(output);
      for (auto& t : flat.tensors) trial.expected.push_back(t.detach().clone());
      trial.structure = flat.structure;
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::problem_error,
                    fmt::format("the reference problem failed (seed {})", seed),
                    {{"traceback", describe_python_error(e)}}};
    } catch (const std::invalid_argument& e) {
      throw Verdict{Status::problem_error, e.what()};
    }
    return trial;
  }

  void load_candidate() {
    try {
      candidate_module_ = import_file(job_.candidate_file, "kbench_candidate");
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::compile_error,
                    fmt::format("the candidate failed to import: {}", python_error_type(e)),
                    {{"traceback", describe_python_error(e)}}};
    }
    if (!py::hasattr(candidate_module_, "ModelNew"))
      throw Verdict{Status::compile_error, "the candidate defines no `ModelNew` class"};
  }

  // Same seed and init args as the reference; when parameter names and shapes agree, the
  // reference weights are copied too, so honest candidates need not mimic creation order.
  py::object build_candidate(const Trial& trial) {
    py::object candidate;
    try {
      candidate = build_model(candidate_module_.attr("ModelNew"), trial.seed);
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::compile_error,
                    fmt::format("ModelNew(...) failed: {}", python_error_type(e)),
                    {{"traceback", describe_python_error(e)}}};
    }
    try {
      py::dict reference_state = trial.model.attr("state_dict")();
      py::dict candidate_state = candidate.attr("state_dict")();
      bool same = py::len(reference_state) == py::len(candidate_state);
      for (auto item : reference_state) {
        if (!same) break;
        same = candidate_state.contains(item.first) &&
               py::bool_(item.second.attr("shape").equal(candidate_state[item.first].attr("shape")));
      }
      if (same && py::len(reference_state) > 0) candidate.attr("load_state_dict")(reference_state);
    } catch (const py::error_already_set& e) {
      throw Verdict{Status::runtime_error, "copying the reference weights into ModelNew failed",
                    {{"traceback", describe_python_error(e)}}};
    }
    return candidate;
  }

  void check_candidate(Trial& trial) {
    py::object candidate = build_candidate(trial);
    FlatOutputs actual;
    try {
      py::object output = candidate(*fresh_copies(trial.inputs));
      actual = flatten_outputs(output);
    } catch (const py::error_already_set& e) {
      const Status status = candidate_fault_status(e, Status::runtime_error);
      throw Verdict{status,
                    fmt::format("ModelNew.forward raised {} (seed {})", python_error_type(e),
                                trial.seed),
                    {{"traceback", describe_python_error(e)}, {"seed", trial.seed}}};
    } catch (const std::invalid_argument& e) {
      throw Verdict{Status::mismatch, e.what(), {{"seed", trial.seed}}};
    }
    if (actual.structure != trial.structure) {
      throw Verdict{Status::mismatch,
                    fmt::format("output structure {} expected, got {}", trial.structure,
                                actual.structure),
                    {{"seed", trial.seed}}};
    }
    ComparisonResult cmp;
    try {
      cmp = compare_outputs(trial.expected, actual.tensors, tolerance_);
    } catch (const std::exception& e) {
      // e.g. outputs on another device or with no storage: the candidate's doing.
      throw Verdict{Status::mismatch,
                    fmt::format("seed {}: outputs cannot be compared with the reference", trial.seed),
                    {{"seed", trial.seed}, {"error", std::string(e.what()).substr(0, 2000)}}};
    }
    max_abs_error_ = std::max(max_abs_error_, cmp.max_abs_error);
    max_rel_error_ = std::max(max_rel_error_, cmp.max_rel_error);
    if (!cmp.ok) {
      throw Verdict{Status::mismatch, fmt::format("seed {}: {}", trial.seed, cmp.reason),
                    {{"mismatch",
                      {{"seed", trial.seed},
                       {"output_index", cmp.output_index},
                       {"max_abs_error", cmp.max_abs_error},
                       {"max_rel_error", cmp.max_rel_error},
                       {"mismatched_fraction", cmp.mismatched_fraction},
                       {"first_bad_index", cmp.first_bad_index},
                       {"atol", tolerance_.atol},
                       {"rtol", tolerance_.rtol}}}}};
    }
    if (!timed_candidate_) timed_candidate_ = candidate;
  }

  std::unique_ptr<Timer> make_timer() const {
    if (job_.device.rfind("cuda", 0) == 0)
      return make_cuda_event_timer(py::int_(device_.attr("index").is_none() ? py::int_(0)
                                                                            : device_.attr("index")));
    return make_host_timer();
  }

  // Compiles the reference with Inductor and checks it against the eager outputs; a baseline that
  // fails is noted and skipped, it never fails the candidate.
  std::optional<py::object> compile_inductor(const Trial& trial) {
    try {
      py::object compiled = torch_.attr("compile")(trial.model, py::arg("mode") = job_.settings.inductor_mode);
      FlatOutputs out = flatten_outputs(compiled(*fresh_copies(trial.inputs)));
      // Inductor may legitimately round differently; it is a baseline, so note, don't fail.
      const auto cmp = compare_outputs(trial.expected, out.tensors, tolerance_);
      if (!cmp.ok) baseline_notes_["inductor"]["warning"] = "differs from eager: " + cmp.reason;
      return compiled;
    } catch (const py::error_already_set& e) {
      baseline_notes_["inductor"]["error"] = describe_python_error(e, 2000);
    } catch (const std::exception& e) {
      baseline_notes_["inductor"]["error"] = e.what();
    }
    return std::nullopt;
  }

  void time_variant(JobResult& result, const std::string& name, const py::object& callable) {
    const FixedProtocol protocol{job_.settings.warmup, job_.settings.trials};
    py::tuple args = fresh_copies(trials_.front().inputs);
    try {
      Measurement m;
      m.timer = timer_->name();
      m.samples_ms = measure_fixed(*timer_, [&] { py::object out = callable(*args); }, protocol);
      m.stats = summarize(m.samples_ms);
      result.timings[name] = std::move(m);
    } catch (const py::error_already_set& e) {
      if (name == "candidate")
        throw Verdict{candidate_fault_status(e, Status::runtime_error),
                      "ModelNew.forward raised during timing",
                      {{"traceback", describe_python_error(e)}}};
      baseline_notes_[name]["error"] = describe_python_error(e, 2000);
    }
  }

  void time_baselines(JobResult& result) {
    const auto& baselines = job_.settings.baselines;
    auto wants = [&](const char* b) {
      return std::find(baselines.begin(), baselines.end(), b) != baselines.end();
    };
    if (wants("eager")) time_variant(result, "eager", trials_.front().model);
    if (wants("inductor"))
      if (auto compiled = compile_inductor(trials_.front())) time_variant(result, "inductor", *compiled);
  }

  const Job& job_;
  py::module_ torch_;
  py::object device_;
  py::object dtype_;
  py::module_ problem_;
  py::module_ candidate_module_;
  py::object timed_candidate_;
  std::vector<Trial> trials_;
  std::unique_ptr<Timer> timer_;
  Tolerance tolerance_;
  double max_abs_error_ = 0;
  double max_rel_error_ = 0;
  nlohmann::json baseline_notes_ = nlohmann::json::object();
};

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return "CPU: " + line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "CPU";
}

}  // namespace

JobResult evaluate_job(const Job& job) { return Evaluation(job).run(); }

nlohmann::json describe_environment(const std::string& device) {
  nlohmann::json env = {{"kbench_version", kVersion}, {"device", device}};
  auto sys = py::module_::import("sys");
  auto platform = py::module_::import("platform");
  env["python"] = py::str(platform.attr("python_version")()).cast<std::string>();
  env["python_executable"] = python_executable();
  env["hostname"] = py::str(platform.attr("node")()).cast<std::string>();
  auto torch = py::module_::import("torch");
  env["torch"] = py::str(torch.attr("__version__")).cast<std::string>();
  py::object cuda_version = torch.attr("version").attr("cuda");
  env["cuda"] = cuda_version.is_none() ? "" : py::str(cuda_version).cast<std::string>();
  try {
    env["triton"] = py::str(py::module_::import("triton").attr("__version__")).cast<std::string>();
  } catch (const py::error_already_set&) {
    env["triton"] = "";
  }
  env["driver"] = cuda::kernel_driver_release();
  env["cuda_driver_api"] = cuda::driver_version();
  if (device.rfind("cuda", 0) == 0) {
    py::object dev = torch.attr("device")(device);
    env["device_name"] = py::str(torch.attr("cuda").attr("get_device_name")(dev)).cast<std::string>();
    py::object props = torch.attr("cuda").attr("get_device_properties")(dev);
    env["sm_count"] = props.attr("multi_processor_count").cast<int>();
    env["gpu_memory_bytes"] = props.attr("total_memory").cast<long long>();
  } else {
    env["device_name"] = cpu_model_name();
    env["cpu_threads"] = torch.attr("get_num_threads")().cast<int>();
  }
  return env;
}

}  // namespace kbench
