#pragma once
// What `--device` means on this machine (docs/cli.md): "auto" -> every visible CUDA device when
// one is usable, else the CPU; "cuda" -> every visible CUDA device; "cuda:N" -> that one; "cpu".
#include <string>
#include <vector>

#include "device/device.hpp"

namespace kbench {

// Throws InputError for a malformed name, EnvironmentError for an unavailable device.
std::vector<Device> resolve_devices(const std::string& requested);

// The first of resolve_devices().
Device resolve_device(const std::string& requested);

// How a run over `devices` is named in its results and journal: the one device, or "cuda" for
// several (jobs spread over them).
Device run_device(const std::vector<Device>& devices);

}  // namespace kbench
