#include "worker/evaluation.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <fstream>
#include <optional>

#include "core/version.hpp"
#include "measure/cuda_driver.hpp"
#include "measure/gpu_monitor.hpp"
#include "worker/candidate_unit.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/gpu_lock_hooks.hpp"
#include "worker/phase_clock.hpp"
#include "integrity/integrity_monitor.hpp"
#include "worker/problem_context.hpp"
#include "worker/python_runtime.hpp"
#include "worker/reference_unit.hpp"
#include "worker/reference_work.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// The problem or torch failed before either unit could start: the verdict, with the level.
JobResult context_failure(const Job& job, const Verdict& verdict) {
  JobResult result;
  result.job = job;
  result.status = verdict.status;
  result.message = verdict.message;
  result.diagnostics.update(verdict.diagnostics);
  report_gpu_lock(result.protocol);
  IntegrityMonitor(job).report(result.diagnostics);
  return result;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return "CPU: " + line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "CPU";
}

// Both entries start alike: the problem set up, the GPU lock taken shared (gpu_lock.hpp) from the
// first device work on (the units take it further), the reference phase entered. A failure before
// that is the job's result.
std::optional<JobResult> open_problem(const Job& job, std::optional<ProblemContext>& context) {
  try {
    PhaseClock::instance().enter("problem_setup");
    context.emplace(job);
  } catch (const Verdict& verdict) {
    return context_failure(job, verdict);
  }
  GpuLock::instance().hold(GpuLock::Mode::shared);
  PhaseClock::instance().enter("reference");  // trials, expected outputs, baselines (Inductor compile)
  return std::nullopt;
}

}  // namespace

JobResult evaluate_job(const Job& job, bool short_baselines) {
  std::optional<ProblemContext> context;
  if (auto failed = open_problem(job, context)) return *failed;
  ReferenceUnit reference(*context);
  ReferenceWork work = reference.run(/*defer_baselines=*/false, short_baselines);
  return CandidateUnit(*context, work, reference.take_handles()).run();
}

JobResult measure_reference_baselines(const Job& job) {
  std::optional<ProblemContext> context;
  if (auto failed = open_problem(job, context)) return *failed;
  // The trials and timing sets as every job builds them; the baselines below.
  ReferenceWork work = ReferenceUnit(*context).run(/*defer_baselines=*/true);
  JobResult result;
  result.job = job;
  if (work.failure) return context_failure(job, *work.failure);
  PhaseClock::instance().enter("baselines");
  IntegrityMonitor levels(job);
  ReferenceHandles handles;
  handles.baselines = build_baselines(*context, work.trials.front(), job.settings.baselines, false, work.baseline_notes);
  if (handles.baselines.empty())
    return context_failure(job, Verdict{Status::problem_error, "no baseline could be built",
                                        {{"baselines", work.baseline_notes}}});
  prepare_timing(*context, work, levels, handles);
  PhaseClock::instance().enter("timing");
  try {
    const ProtocolRun run = handles.session->measure(handles.baselines, context->timing);
    handles.session->store(run, context->timing, result);
  } catch (const VariantError& e) {
    return context_failure(job, Verdict{Status::problem_error,
                                        fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                                        {{"traceback", e.traceback}}});
  }
  result.status = Status::ok;
  if (!work.baseline_notes.empty()) result.diagnostics["baselines"] = work.baseline_notes;
  PhaseClock::instance().enter("report");
  return result;
}

EncodedReferenceWork run_reference_unit(const Job& job, bool defer_baselines, bool short_baselines) {
  ReferenceWork work;
  try {
    ProblemContext context(job);
    GpuLock::instance().hold(GpuLock::Mode::shared);
    work = ReferenceUnit(context).run(defer_baselines, short_baselines);
    if (!work.failure) add_input_digests(work);
  } catch (const Verdict& verdict) {
    work.failure = verdict;
  }
  nlohmann::json witness;
  if (!work.witness_seeds.empty()) witness = {{"seeds", work.witness_seeds}, {"overhead_s", work.witness_overhead_s}};
  return {encode_reference_work(work), encode_reference_work(work, /*blinded=*/true), witness};
}

JobResult evaluate_against_reference(const Job& job, const std::string& encoded_work, Commitment* commitment) {
  PhaseClock::instance().enter("problem_setup");
  ReferenceWork work;
  {
    const PhaseStep step("decode_reference_work");
    work = decode_reference_work(encoded_work);
  }
  std::optional<ProblemContext> context;
  try {
    context.emplace(job);
  } catch (const Verdict& verdict) {
    return context_failure(job, verdict);
  }
  CandidateUnit unit(*context, work, ReferenceHandles{});
  JobResult result = unit.run();
  if (commitment) *commitment = unit.commitment();
  return result;
}


nlohmann::json describe_environment(const Device& device) {
  nlohmann::json env = {{"kbench_version", kVersion}, {"device", to_string(device)}};
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
  if (device.is_cuda()) {
    py::object dev = torch.attr("device")(to_string(device));
    env["device_name"] = py::str(torch.attr("cuda").attr("get_device_name")(dev)).cast<std::string>();
    py::object props = torch.attr("cuda").attr("get_device_properties")(dev);
    env["sm_count"] = props.attr("multi_processor_count").cast<int>();
    env["gpu_memory_bytes"] = props.attr("total_memory").cast<long long>();
    env["compute_capability"] = fmt::format("{}.{}", props.attr("major").cast<int>(), props.attr("minor").cast<int>());
    // Decides where Triton candidates run (docs/threat-model.md#raw-memory-from-pure-python).
    env["pageable_memory_access"] = cuda::pageable_memory_access(device.index.value_or(0));
  } else {
    env["device_name"] = cpu_model_name();
    env["cpu_threads"] = torch.attr("get_num_threads")().cast<int>();
  }
  return env;
}

}  // namespace kbench
