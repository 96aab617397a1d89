#include "worker/evaluation.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <fstream>
#include <map>
#include <optional>

#include "check/output_comparison.hpp"
#include "core/version.hpp"
#include "measure/cuda_driver.hpp"
#include "measure/gpu_monitor.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/phase_signal.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/timing_session.hpp"

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

// Triton reports kernel compilation failures at the first call; they are compile errors.
Status candidate_fault_status(const std::string& type, Status otherwise) {
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
      // GPU lock (gpu_lock.hpp): shared from the first device work on, exclusive while timing,
      // released around the candidate's import so it overlaps another worker's timing.
      auto& gpu = GpuLock::instance();
      gpu.hold(GpuLock::Mode::shared);
      for (int i = 0; i < job_.settings.seeds; ++i) trials_.push_back(make_trial(trial_seed(i)));
      // Reference outputs and baseline times exist before any candidate code is imported.
      measure_baselines(result);
      gpu.hold(GpuLock::Mode::none);
      load_candidate();
      gpu.hold(GpuLock::Mode::shared);
      for (auto& trial : trials_) check_candidate(trial);
      result.diagnostics["correctness"] = {{"seeds_checked", job_.settings.seeds},
                                           {"max_abs_error", max_abs_error_},
                                           {"max_rel_error", max_rel_error_},
                                           {"atol", tolerance_.atol},
                                           {"rtol", tolerance_.rtol}};
      measure_with_candidate(result);
      result.status = Status::ok;
    } catch (const Verdict& verdict) {
      result.status = verdict.status;
      result.message = verdict.message;
      result.diagnostics.update(verdict.diagnostics);
    }
    if (!baseline_notes_.empty()) result.diagnostics["baselines"] = baseline_notes_;
    if (GpuLock::instance().enabled()) result.protocol["gpu_lock_wait_s"] = GpuLock::instance().wait_s();
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
    timing_ = resolve_timing(job_.settings.timing, device_kind(job_.device));
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
      announce_run_phase();  // compiled and ran once: the run limit applies from here
      actual = flatten_outputs(output);
    } catch (const py::error_already_set& e) {
      const Status status = candidate_fault_status(python_error_type(e), Status::runtime_error);
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

  // Input sets for timing, built like the correctness inputs under their own seeds, as many as
  // memory allows (each variant holds its own clones of every set).
  std::vector<py::list> build_timing_inputs() {
    const std::size_t wanted = std::size_t(std::max(1, timing_.input_sets));
    std::vector<py::list> sets = {trials_.front().inputs};
    long long bytes = 0;
    for (auto item : sets.front())
      if (is_tensor(item)) bytes += to_tensor(item).nbytes();
    const long long budget = job_.device.rfind("cuda", 0) == 0 ? (4LL << 30) : (256LL << 20);
    const std::size_t affordable = std::size_t(std::max(1LL, budget / std::max(1LL, 3 * bytes)));
    for (std::size_t i = 1; i < std::min(wanted, affordable); ++i)
      sets.push_back(build_inputs(5000 + int(i)));
    return sets;
  }

  // Baselines are compiled and measured before the candidate exists in this process: failing
  // candidates still get baseline times, and the interleaved run can be checked against these.
  void measure_baselines(JobResult& result) {
    const auto& names = job_.settings.baselines;
    auto wants = [&](const char* b) { return std::find(names.begin(), names.end(), b) != names.end(); };
    if (wants("eager")) baselines_.push_back({"eager", trials_.front().model});
    if (wants("inductor"))
      if (auto compiled = compile_inductor(trials_.front())) baselines_.push_back({"inductor", *compiled});
    session_ = std::make_unique<TimingSession>(job_, build_timing_inputs());
    if (baselines_.empty() || timing_.mode == TimingMode::kernelbench) return;
    ResolvedTiming quick = timing_;
    quick.max_time_s = std::min(2.0, timing_.max_time_s / 4);
    quick.target_ci = std::max(timing_.target_ci, 0.01);
    try {
      const ProtocolRun run = session_->measure(baselines_, quick);
      session_->store(run, quick, result);
      for (const auto& [name, record] : run.variants)
        if (!record.samples_ms.empty()) pre_import_median_[name] = summarize(record.samples_ms).median;
    } catch (const VariantError& e) {
      throw Verdict{Status::problem_error, fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                    {{"traceback", e.traceback}}};
    }
  }

  void measure_with_candidate(JobResult& result) {
    std::vector<NamedCallable> variants = {{"candidate", timed_candidate_}};
    variants.insert(variants.end(), baselines_.begin(), baselines_.end());
    ProtocolRun run;
    try {
      run = session_->measure(variants, timing_);
    } catch (const VariantError& e) {
      if (e.variant != "candidate")
        throw Verdict{Status::problem_error,
                      fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                      {{"traceback", e.traceback}}};
      throw Verdict{candidate_fault_status(e.python_type, Status::runtime_error),
                    fmt::format("ModelNew.forward raised {} during timing", e.python_type),
                    {{"traceback", e.traceback}}};
    }
    result.timings.clear();
    session_->store(run, timing_, result);
    nlohmann::json pre = nlohmann::json::object();
    for (const auto& [name, median] : pre_import_median_) {
      pre[name] = median;
      // A baseline that got much slower once the candidate was imported suggests tampering
      // (e.g. a monkeypatched torch op); flag it for review.
      const auto it = run.variants.find(name);
      if (it == run.variants.end() || it->second.samples_ms.empty()) continue;
      const double after = summarize(it->second.samples_ms).median;
      if (after > 1.10 * median && after - median > 0.02)
        result.diagnostics["flags"].push_back(fmt::format(
            "baseline_slowed_after_candidate_import: {} {:.4g} ms -> {:.4g} ms", name, median, after));
    }
    if (!pre.empty()) result.protocol["pre_import_median_ms"] = pre;
  }

  const Job& job_;
  py::module_ torch_;
  py::object device_;
  py::object dtype_;
  py::module_ problem_;
  py::module_ candidate_module_;
  py::object timed_candidate_;
  std::vector<Trial> trials_;
  ResolvedTiming timing_;
  std::unique_ptr<TimingSession> session_;
  std::vector<NamedCallable> baselines_;
  std::map<std::string, double> pre_import_median_;
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
  if (env["driver"] == "") env["driver"] = nvml_driver_version();
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
