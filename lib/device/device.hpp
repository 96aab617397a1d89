#pragma once
// A device as kbench names it: "cpu", "cuda:N", or "cuda" (every visible CUDA device: a run
// spread over several). The one place that parses or prints device names; everything else
// compares kinds and indexes, never strings.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

enum class DeviceKind { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  // The CUDA ordinal (as CUDA_VISIBLE_DEVICES numbers them); nullopt for the CPU and for
  // "cuda" meaning several devices.
  std::optional<int> index;

  [[nodiscard]] bool is_cuda() const { return kind == DeviceKind::cuda; }
  [[nodiscard]] bool is_cpu() const { return kind == DeviceKind::cpu; }
  friend bool operator==(const Device& a, const Device& b) {
    return a.kind == b.kind && a.index == b.index;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

inline Device cpu_device() { return {DeviceKind::cpu, std::nullopt}; }
inline Device cuda_device(int index) { return {DeviceKind::cuda, index}; }
inline Device every_cuda_device() { return {DeviceKind::cuda, std::nullopt}; }

// "cpu", "cuda", "cuda:3".
std::string to_string(const Device& device);
std::string to_string(DeviceKind kind);

// "cpu", "cuda" or "cuda:N" (N decimal digits only, no sign); nullopt for anything else, "auto"
// included (resolve_devices handles that).
std::optional<Device> parse_device(std::string_view text);

// "cpu" or "cuda": the keys of per-device-kind blocks (`sizes:` in a suite).
std::optional<DeviceKind> device_kind_from_string(std::string_view text);
const std::vector<std::string>& device_kind_names();

}  // namespace kbench
