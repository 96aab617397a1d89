#include "measure/gpu_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>

#include "core/dynamic_symbol.hpp"

namespace kbench {
namespace {

// The NVML C ABI subset kbench reads (stable across driver releases).
using nvmlReturn = int;
using nvmlDevice = void*;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlTemperatureGpu = 0;
// Reasons that mean the GPU is being slowed down (SW power cap, HW slowdown, SW/HW thermal,
// HW power brake); idle and application-clock bits are not throttling.
constexpr unsigned long long kSlowdownReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

struct Nvml {
  bool loaded = false;
  std::string error;
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*by_pci)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*max_clock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*temperature)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*power)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*driver_version)(char*, unsigned) = nullptr;
};

const Nvml& nvml() {
  static const Nvml instance = [] {
    Nvml n;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      n.error = "NVML (libnvidia-ml.so.1) is not installed";
      return n;
    }
    const bool ok = resolve_symbol(library, n.init, "nvmlInit_v2") &&
                    resolve_symbol(library, n.by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                    resolve_symbol(library, n.clock, "nvmlDeviceGetClockInfo") &&
                    resolve_symbol(library, n.max_clock, "nvmlDeviceGetMaxClockInfo") &&
                    resolve_symbol(library, n.temperature, "nvmlDeviceGetTemperature") &&
                    resolve_symbol(library, n.power, "nvmlDeviceGetPowerUsage") &&
                    resolve_symbol(library, n.reasons, "nvmlDeviceGetCurrentClocksEventReasons",
                            "nvmlDeviceGetCurrentClocksThrottleReasons") &&
                    resolve_symbol(library, n.driver_version, "nvmlSystemGetDriverVersion");
    if (!ok) {
      n.error = "NVML lacks a needed function";
      return n;
    }
    if (n.init() != 0) {
      n.error = "nvmlInit failed";
      return n;
    }
    n.loaded = true;
    return n;
  }();
  return instance;
}

}  // namespace

std::string nvml_driver_version() {
  const Nvml& n = nvml();
  char version[96] = {};
  if (!n.loaded || n.driver_version(version, sizeof(version)) != 0) return "";
  return version;
}

GpuMonitor::GpuMonitor(const std::string& pci_bus_id) {
  const Nvml& n = nvml();
  if (!n.loaded) {
    why_ = n.error;
    return;
  }
  nvmlDevice device = nullptr;
  if (n.by_pci(pci_bus_id.c_str(), &device) != 0) {
    why_ = "NVML does not know the GPU at " + pci_bus_id;
    return;
  }
  device_ = device;
  n.max_clock(device, kNvmlClockSm, &max_sm_clock_mhz_);
}

GpuMonitor::~GpuMonitor() = default;

ClockReading GpuMonitor::read() {
  ClockReading r;
  if (!device_) return r;
  const Nvml& n = nvml();
  n.clock(device_, kNvmlClockSm, &r.sm_clock_mhz);
  n.temperature(device_, kNvmlTemperatureGpu, &r.temperature_c);
  unsigned milliwatts = 0;
  if (n.power(device_, &milliwatts) == 0) r.power_w = milliwatts / 1000.0;
  n.reasons(device_, &r.throttle_reasons);
  return r;
}

nlohmann::json summarize_clocks(const std::vector<ClockReading>& readings, unsigned max_sm_clock_mhz) {
  if (readings.empty()) return nullptr;
  double clock_sum = 0, power_sum = 0;
  unsigned clock_min = readings.front().sm_clock_mhz, clock_max = 0, temperature_max = 0;
  unsigned long long reasons = 0;
  for (const auto& r : readings) {
    clock_sum += r.sm_clock_mhz;
    power_sum += r.power_w;
    clock_min = std::min(clock_min, r.sm_clock_mhz);
    clock_max = std::max(clock_max, r.sm_clock_mhz);
    temperature_max = std::max(temperature_max, r.temperature_c);
    reasons |= r.throttle_reasons;
  }
  const bool slow_clock = max_sm_clock_mhz > 0 && clock_min < 0.75 * max_sm_clock_mhz;
  return {{"readings", readings.size()},
          {"sm_clock_mhz_mean", clock_sum / double(readings.size())},
          {"sm_clock_mhz_min", clock_min},
          {"sm_clock_mhz_max", clock_max},
          {"sm_clock_mhz_limit", max_sm_clock_mhz},
          {"temperature_c_max", temperature_max},
          {"power_w_mean", power_sum / double(readings.size())},
          {"throttle_reasons", reasons},
          {"throttled", (reasons & kSlowdownReasons) != 0 || slow_clock}};
}

}  // namespace kbench
