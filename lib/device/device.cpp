#include "device/device.hpp"

#include <charconv>

namespace kbench {

std::string to_string(DeviceKind kind) { return kind == DeviceKind::cuda ? "cuda" : "cpu"; }

std::string to_string(const Device& device) {
  std::string text = to_string(device.kind);
  if (device.index) text += ":" + std::to_string(*device.index);
  return text;
}

std::optional<DeviceKind> device_kind_from_string(std::string_view text) {
  if (text == "cpu") return DeviceKind::cpu;
  if (text == "cuda") return DeviceKind::cuda;
  return std::nullopt;
}

const std::vector<std::string>& device_kind_names() {
  static const std::vector<std::string> names = {"cpu", "cuda"};
  return names;
}

std::optional<Device> parse_device(std::string_view text) {
  const auto colon = text.find(':');
  const auto kind = device_kind_from_string(text.substr(0, colon));
  if (!kind) return std::nullopt;
  if (colon == std::string_view::npos) return Device{*kind, std::nullopt};
  // Only CUDA devices have ordinals; "cpu:0" would suggest a choice kbench does not offer.
  if (*kind != DeviceKind::cuda) return std::nullopt;
  const auto digits = text.substr(colon + 1);
  if (digits.empty()) return std::nullopt;
  int index = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc() || end != digits.data() + digits.size() || index < 0) return std::nullopt;
  return cuda_device(index);
}

}  // namespace kbench
