#pragma once
// Freed memory released before the candidate's code loads (docs/threat-model.md, "what is still
// on the device"). The baselines ran in this process on the first trial's inputs, and torch
// freed their intermediates (the `x @ W` of `relu(x @ W)`) as they were: on the GPU they sit in
// the caching allocator's inactive blocks, which any kernel of the context can read by address;
// on the host in the free heap, which native code can read. Inactive device blocks are filled
// with 0xFF bytes (NaN in every float type) and handed back to the driver; free host pages go back
// to the kernel (malloc_trim), so they read as zeros if mapped again.
#include <nlohmann/json.hpp>

#include "device/device.hpp"

namespace kbench {

// What was released: {"device_bytes_poisoned", "device_blocks", "host_trimmed"}.
nlohmann::json release_freed_memory(const Device& device);

}  // namespace kbench
