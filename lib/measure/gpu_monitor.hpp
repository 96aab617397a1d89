#pragma once
// SM clock, temperature, power and throttle reasons of one GPU through NVML (libnvidia-ml.so.1,
// loaded at run time). Read-only: kbench never changes clocks or any GPU setting.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

struct ClockReading {
  unsigned sm_clock_mhz = 0;
  unsigned temperature_c = 0;
  double power_w = 0;
  unsigned long long throttle_reasons = 0;  // NVML clocks-event reason bits
};

class GpuMonitor {
 public:
  // Finds the GPU by PCI bus id (CUDA and NVML may order devices differently).
  explicit GpuMonitor(const std::string& pci_bus_id);
  ~GpuMonitor();
  [[nodiscard]] bool available() const { return device_ != nullptr; }
  [[nodiscard]] const std::string& unavailable_reason() const { return why_; }
  [[nodiscard]] unsigned max_sm_clock_mhz() const { return max_sm_clock_mhz_; }
  ClockReading read();

 private:
  void* device_ = nullptr;
  unsigned max_sm_clock_mhz_ = 0;
  std::string why_;
};

// The driver release reported by NVML (e.g. "580.159.04"), or "" without NVML.
std::string nvml_driver_version();

// Mean/min/max clock, max temperature, mean power, and the throttling flag: a reason that means
// slowdown (power cap, thermal, hardware slowdown) was seen, or the clock fell below 75% of max.
nlohmann::json summarize_clocks(const std::vector<ClockReading>& readings, unsigned max_sm_clock_mhz);

}  // namespace kbench
