#pragma once
// The per-GPU lock file (docs/architecture.md#several-slots-and-the-gpu-lock): one per physical
// device, shared by every kbench run on the machine. Workers take it (lib/worker/gpu_lock.cpp).
#include <filesystem>

#include "device/device.hpp"

namespace kbench {

// The lock file of CUDA device `device` in `lock_dir`, named after the physical device when
// CUDA_VISIBLE_DEVICES renumbers them, so two kbench runs on one GPU share one lock. Throws
// std::logic_error for a device without an index (the CPU, or "cuda" meaning several).
std::filesystem::path gpu_lock_file(const std::filesystem::path& lock_dir, const Device& device);

// The lock's gate, beside it (`<lock>.gate`): a worker about to time holds it while it waits, so
// workers starting GPU work queue behind the timing instead of starving it (gpu_lock.hpp).
std::filesystem::path gpu_lock_gate_file(const std::filesystem::path& lock_file);

}  // namespace kbench
