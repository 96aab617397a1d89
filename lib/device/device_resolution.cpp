#include "device/device_resolution.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/cuda_driver.hpp"

namespace kbench {

std::vector<Device> resolve_devices(const std::string& requested) {
  std::string why;
  const bool automatic = requested == "auto";
  if (automatic && !cuda::available(&why)) return {cpu_device()};
  const auto device = automatic ? every_cuda_device() : parse_device(requested);
  if (!device)
    throw InputError(fmt::format("--device '{}' is not one of auto, cpu, cuda, cuda:N", requested));
  if (device->is_cpu()) return {cpu_device()};
  if (!cuda::available(&why))
    throw EnvironmentError(fmt::format("--device {}: {}; use --device cpu", requested, why));
  const int count = cuda::device_count();
  if (device->index.value_or(0) >= count)
    throw EnvironmentError(fmt::format("--device {}: only {} CUDA device(s) visible", requested, count));
  if (device->index) return {*device};
  std::vector<Device> devices;
  for (int i = 0; i < count; ++i) devices.push_back(cuda_device(i));
  return devices;
}

Device resolve_device(const std::string& requested) { return resolve_devices(requested).front(); }

Device run_device(const std::vector<Device>& devices) {
  return devices.size() == 1 ? devices.front() : every_cuda_device();
}

}  // namespace kbench
