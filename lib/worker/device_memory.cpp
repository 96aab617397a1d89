#include "worker/device_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include <unistd.h>

#include "core/text.hpp"
#include "exec/memory_ledger.hpp"
#include "model/eval_settings.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// Every text an exception left in a verdict: the message, tracebacks, errors.
std::string verdict_text(const Verdict& v) {
  std::string text = v.message;
  for (const char* key : {"traceback", "error"})
    if (v.diagnostics.contains(key) && v.diagnostics[key].is_string()) text += "\n" + v.diagnostics[key].get<std::string>();
  return text;
}

// The line of `text` that names the failure (torch's OutOfMemoryError is several sentences).
std::string first_line_with(const std::string& text, const char* marker) {
  const auto at = text.find(marker);
  if (at == std::string::npos) return "";
  const auto begin = text.rfind('\n', at);
  const auto end = text.find('\n', at);
  std::string line = text.substr(begin == std::string::npos ? 0 : begin + 1,
                                 end == std::string::npos ? std::string::npos : end - begin - 1);
  return line.substr(0, 400);
}

}  // namespace

long long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<long long>(sysconf(_SC_PAGESIZE));
}

long long host_budget_bytes(const Job& job) {
  const double limit_gb = job.settings.memory_limit_gb.value_or(default_memory_limit_gb());
  const auto limit = static_cast<long long>(limit_gb * double(1LL << 30));
  return std::max(limit / 8, limit - resident_bytes() - kHostReserveBytes);
}

std::optional<std::string> out_of_memory_kind(const std::string& text) {
  for (const char* gpu : {"CUDA out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED",
                          "cudaErrorMemoryAllocation", "CUDA error: out of memory"})
    if (contains(text, gpu)) return "gpu";
  for (const char* host : {"MemoryError", "DefaultCPUAllocator: can't allocate memory", "std::bad_alloc"})
    if (contains(text, host)) return "host";
  return std::nullopt;
}

DeviceMemory::DeviceMemory(py::module_ torch, py::object device, bool cuda, const std::filesystem::path& grant_file)
    : torch_(std::move(torch)), device_(std::move(device)), cuda_(cuda) {
  std::ifstream in;
  if (!grant_file.empty()) in.open(grant_file);
  if (in) {
    const auto grant = nlohmann::json::parse(in, nullptr, false);
    if (grant.is_object()) {
      grant_bytes_ = std::max(0LL, grant.value("bytes", 0LL));
      alone_ = grant.value("alone", false);
    }
  }
  if (!cuda_ || grant_bytes_ <= 0) return;
  // The allocator's cap: the grant less what the context takes outside the allocator.
  const py::tuple info = torch_.attr("cuda").attr("mem_get_info")(device_);
  const double total = info[1].cast<double>();
  const double cap = double(std::max(grant_bytes_ - kDeviceContextBytes, grant_bytes_ / 2));
  torch_.attr("cuda").attr("set_per_process_memory_fraction")(std::min(1.0, cap / total), device_);
}

long long DeviceMemory::planning_budget() const {
  if (grant_bytes_ > 0) return grant_bytes_ - (cuda_ ? kDeviceContextBytes : 0);
  if (!cuda_) return 0;
  const py::tuple info = torch_.attr("cuda").attr("mem_get_info")(device_);
  return info[0].cast<long long>();
}

long long DeviceMemory::query(const char* function) const {
  if (!cuda_) return 0;
  return torch_.attr("cuda").attr(function)(device_).cast<long long>();
}

void DeviceMemory::track_peaks() {
  peak_allocated_ = std::max(peak_allocated_, query("max_memory_allocated"));
  peak_reserved_ = std::max(peak_reserved_, query("max_memory_reserved"));
}

void DeviceMemory::begin_call() {
  if (!cuda_) return;
  track_peaks();  // resetting the peak stats below must not lose the job's peak so far
  torch_.attr("cuda").attr("reset_peak_memory_stats")(device_);
  call_base_ = query("memory_allocated");
}

long long DeviceMemory::end_call() {
  if (!cuda_) return 0;
  const long long peak = query("max_memory_allocated");
  track_peaks();
  return std::max(0LL, peak - call_base_);
}

void DeviceMemory::note_plan(const MemoryFootprint& footprint, const MemoryPlan& plan) {
  footprint_ = footprint;
  plan_ = plan;
}

MemoryUsage DeviceMemory::usage() {
  MemoryUsage u;
  if (footprint_) u.plan["footprint"] = to_json(*footprint_);
  if (plan_) u.plan["plan"] = to_json(*plan_);
  u.gpu_alone = alone_;
  if (grant_bytes_ > 0) u.gpu_budget_bytes = grant_bytes_;
  if (!cuda_) return u;
  try {
    track_peaks();
    u.gpu_peak_allocated_bytes = peak_allocated_;
    u.gpu_peak_reserved_bytes = peak_reserved_;
    const py::tuple info = torch_.attr("cuda").attr("mem_get_info")(device_);
    u.gpu_device_used_bytes = info[1].cast<long long>() - info[0].cast<long long>();
  } catch (const py::error_already_set&) {
    // A device in an error state (a candidate's illegal access) has no figures left to give.
  }
  return u;
}

Verdict DeviceMemory::explain(Verdict verdict, const std::string& whose) {
  const std::string text = verdict_text(verdict);
  const auto kind = out_of_memory_kind(text);
  if (!kind || verdict.diagnostics.contains("out_of_memory")) return verdict;
  nlohmann::json oom = {{"memory", *kind}, {"whose", whose}, {"alone", alone_ || grant_bytes_ <= 0}};
  if (grant_bytes_ > 0) oom["grant_bytes"] = grant_bytes_;
  if (plan_) oom["planned_minimum_bytes"] = plan_->minimum_bytes;
  std::string held;
  if (*kind == "gpu" && cuda_) {
    try {
      const py::tuple info = torch_.attr("cuda").attr("mem_get_info")(device_);
      oom["device_free_bytes"] = info[0].cast<long long>();
      oom["device_total_bytes"] = info[1].cast<long long>();
      oom["worker_allocated_bytes"] = query("memory_allocated");
      oom["worker_reserved_bytes"] = query("memory_reserved");
      // Everything in use on the device that is not this worker's: other processes.
      oom["others_bytes"] = std::max(0LL, info[1].cast<long long>() - info[0].cast<long long>() -
                                              query("memory_reserved") - kDeviceContextBytes);
      held = fmt::format("; this worker holds {} (grant {}), {} free on the device, others use about {}",
                         bytes_text(double(query("memory_reserved"))),
                         grant_bytes_ > 0 ? bytes_text(double(grant_bytes_)) : std::string("none"),
                         bytes_text(oom["device_free_bytes"].get<double>()),
                         bytes_text(oom["others_bytes"].get<double>()));
    } catch (const py::error_already_set&) {
    }
  }
  for (const char* marker : {"Tried to allocate", "out of memory", "MemoryError", "can't allocate"}) {
    const std::string line = first_line_with(text, marker);
    if (!line.empty()) {
      oom["error"] = line;
      break;
    }
  }
  const bool candidate = whose == "candidate";
  verdict.status = candidate ? Status::runtime_error : Status::problem_error;
  verdict.message = fmt::format("out of {} memory in the {}{}", *kind == "gpu" ? "GPU" : "host", whose, held);
  verdict.diagnostics["out_of_memory"] = oom;
  return verdict;
}

Verdict DeviceMemory::does_not_fit(const MemoryPlan& plan, const std::string& whose) const {
  Verdict verdict{Status::problem_error,
                  fmt::format("out of {} memory in the {}: one reference call's footprint needs at "
                              "least {}, {} granted",
                              cuda_ ? "GPU" : "host", whose, bytes_text(double(plan.minimum_bytes)),
                              bytes_text(double(plan.budget_bytes)))};
  verdict.diagnostics["out_of_memory"] = {{"memory", cuda_ ? "gpu" : "host"},
                                          {"whose", whose},
                                          {"alone", alone_},
                                          {"planned", true},
                                          {"grant_bytes", grant_bytes_},
                                          {"planned_minimum_bytes", plan.minimum_bytes}};
  return verdict;
}

}  // namespace kbench
