#include "exec/controller.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <cstring>
#include <fstream>
#include <regex>

#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "exec/result_channel.hpp"
#include "measure/cuda_driver.hpp"

namespace kbench {

std::string resolve_device(const std::string& requested) {
  static const std::regex kCudaIndex("cuda:([0-9]+)");
  std::smatch match;
  std::string why;
  if (requested == "cpu") return "cpu";
  if (requested == "auto") return cuda::available(&why) ? "cuda:0" : "cpu";
  int index = 0;
  if (requested == "cuda") {
    index = 0;
  } else if (std::regex_match(requested, match, kCudaIndex)) {
    index = std::stoi(match[1]);
  } else {
    throw InputError(fmt::format(
        "--device '{}' is not one of auto, cpu, cuda, cuda:N", requested));
  }
  if (!cuda::available(&why))
    throw EnvironmentError(fmt::format("--device {}: {}; use --device cpu", requested, why));
  if (index >= cuda::device_count())
    throw EnvironmentError(fmt::format("--device {}: only {} CUDA device(s) visible", requested,
                                       cuda::device_count()));
  return fmt::format("cuda:{}", index);
}

namespace {

const char* signal_name(int signal) {
  const char* name = sigdescr_np(signal);
  return name ? name : "unknown signal";
}

std::map<std::string, std::string> worker_env(const std::string& device) {
  std::map<std::string, std::string> env = {{"KBENCH_DEVICE", device},
                                            {"PYTHONUNBUFFERED", "1"},
                                            {"PYTHONDONTWRITEBYTECODE", "1"}};
  // No GPU: Triton kernels run through Triton's interpreter on CPU tensors.
  if (device_kind(device) == "cpu") env["TRITON_INTERPRET"] = "1";
  return env;
}

double memory_limit_gb(const EvalSettings& settings) {
  return settings.memory_limit_gb.value_or(default_memory_limit_gb());
}

}  // namespace

namespace {
// Everything in a job's wall time that is neither the evaluation proper (compile and device
// work) nor waiting: process start, Python start, the torch/triton imports, result delivery.
void note_harness_overhead(JobResult& result) {
  const auto& timeline = result.diagnostics.value("worker_timeline", nlohmann::json::object());
  if (!timeline.contains("evaluate_s") || !timeline["evaluate_s"].is_number()) return;
  result.diagnostics["harness_overhead_s"] =
      std::max(0.0, result.wall_s - timeline["evaluate_s"].get<double>());
}
}  // namespace

JobResult interpret_outcome(const Job& job, const WorkerOutcome& outcome) {
  JobResult result;
  result.job = job;
  result.wall_s = outcome.wall_s;
  auto attach_output = [&] {
    if (!outcome.stdout_text.empty()) result.diagnostics["stdout_tail"] = outcome.stdout_text;
    if (!outcome.stderr_text.empty()) result.diagnostics["stderr_tail"] = outcome.stderr_text;
    if (outcome.stdout_bytes || outcome.stderr_bytes) {
      result.diagnostics["output"] = {{"stdout_bytes", outcome.stdout_bytes},
                                      {"stderr_bytes", outcome.stderr_bytes},
                                      {"truncated", outcome.output_truncated}};
    }
    if (!outcome.sandbox.is_null()) result.diagnostics["sandbox"] = outcome.sandbox;
  };
  if (outcome.timed_out) {
    result.status = Status::timeout;
    result.message = fmt::format("killed after the {:g} s limit ({})", outcome.timeout_limit_s,
                                 outcome.timeout_limit);
    attach_output();
    return result;
  }
  if (outcome.memory_exceeded) {
    result.status = Status::crashed;
    result.message = fmt::format("exceeded the host memory limit ({:g} GiB, memory_limit_gb); killed",
                                 memory_limit_gb(job.settings));
    result.diagnostics["peak_memory_bytes"] = outcome.peak_memory_bytes;
    attach_output();
    return result;
  }
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (payload) {
    try {
      apply_worker_message(nlohmann::json::parse(*payload), result);
      note_harness_overhead(result);
      attach_output();
      return result;
    } catch (const std::exception& e) {
      why = fmt::format("malformed result message ({})", e.what());
    }
  }
  result.status = Status::crashed;
  result.timings.clear();
  result.diagnostics = nlohmann::json::object();
  if (outcome.signal) {
    result.message = fmt::format("worker killed by signal {} ({}); {}", outcome.signal,
                                 signal_name(outcome.signal), why);
  } else {
    result.message = fmt::format("worker exited with code {}; {}", outcome.exit_code, why);
  }
  result.diagnostics["exit_code"] = outcome.exit_code;
  result.diagnostics["signal"] = outcome.signal;
  attach_output();
  return result;
}

namespace {
struct Interrupted {};
}  // namespace

JobResult run_job(const Job& job, const std::filesystem::path& job_dir) {
  std::filesystem::create_directories(job_dir);
  const auto job_file = job_dir / "job.json";
  std::ofstream(job_file) << to_json(job).dump(2);
  WorkerLaunch launch;
  launch.args = {"worker", "--job", job_file.string()};
  launch.work_dir = job_dir;
  launch.timeout_s = job.settings.timeout_s;
  launch.compile_timeout_s = job.settings.compile_timeout_s.value_or(0);
  launch.run_timeout_s = job.settings.run_timeout_s.value_or(0);
  launch.memory_limit_bytes = std::uint64_t(memory_limit_gb(job.settings) * double(1ull << 30));
  launch.output_cap_bytes = std::size_t(job.settings.output_cap_mb * double(1 << 20));
  launch.sandbox.file_size_limit_bytes =
      std::uint64_t(job.settings.file_size_limit_gb * double(1ull << 30));
  launch.env = worker_env(job.device);
  const auto outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Interrupted{};
  return interpret_outcome(job, outcome);
}

nlohmann::json probe_environment(const std::string& device, const std::filesystem::path& work_dir) {
  WorkerLaunch launch;
  launch.args = {"worker", "--probe", "--device", device};
  launch.work_dir = work_dir / "probe";
  launch.timeout_s = 300;
  launch.env = worker_env(device);
  const auto outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Error(kExitInterrupted, "interrupted before any evaluation ran");
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (!payload) {
    throw EnvironmentError(fmt::format(
        "the Python worker could not start ({}). Run scripts/setup.sh, or set KBENCH_PYTHON to "
        "a python that has torch.\n{}",
        outcome.timed_out ? "timed out" : why, outcome.stderr_text));
  }
  auto message = nlohmann::json::parse(*payload);
  if (message.contains("error"))
    throw EnvironmentError(fmt::format("the Python worker failed: {}",
                                       message["error"].get<std::string>()));
  // What the jobs of this run are isolated with (docs/sandbox.md), once for the whole run.
  message["sandbox"] = outcome.sandbox;
  return message;
}

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, const ControllerOptions& options) {
  std::vector<JobResult> results;
  for (std::size_t i = 0; i < jobs.size() && !interrupt_requested(); ++i) {
    const auto dir = options.work_dir / fmt::format("job-{:04d}", i);
    try {
      results.push_back(run_job(jobs[i], dir));
    } catch (const Interrupted&) {
      break;
    }
    if (options.on_result) options.on_result(results.back(), i + 1, jobs.size());
  }
  return results;
}

}  // namespace kbench
