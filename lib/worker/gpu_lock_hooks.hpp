#pragma once
// The worker's side of the per-GPU lock that needs Python (gpu_lock.hpp has none): what a
// release must wait for, Triton compiles without the lock, and the lock's figures per result.
#include <functional>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "device/device.hpp"

namespace kbench {

// After `import torch, triton`, for a CUDA job whose worker has a lock (no-op otherwise):
// - the drain: torch.cuda.synchronize on the job's device before the lock is let go (once CUDA
//   is initialised), so a timer never starts while this worker's kernels are still queued;
// - triton.compile (what @triton.jit's first call, @triton.autotune's configs and Inductor's
//   in-process kernel builds go through) runs with the lock dropped when it is held shared:
//   compiling is CPU work (source -> PTX -> cubin; the module is loaded at the first launch,
//   which is after the lock is taken again, behind any waiting timer). Not while a stream is
//   being captured (a synchronisation would break the capture), not from other threads than
//   the worker's (GpuLock is not thread-safe; those compiles just keep the lock as held).
void install_gpu_lock_hooks(const Device& device);

// Replaces `module.name` by a wrapper that runs it with the lock dropped (GpuLockScope(none))
// when the lock is held shared, the caller is the thread that installed it and `capturing()` is
// false; otherwise it calls through. What install_gpu_lock_hooks does to triton.compile.
void drop_lock_during(pybind11::module_ module, const char* name, std::function<bool()> capturing);
// How many calls dropped the lock so far.
int lock_drops();

// protocol.gpu_lock_wait_s, gpu_lock_yields and gpu_lock_compile_releases (workers with a lock).
void report_gpu_lock(nlohmann::json& protocol);

}  // namespace kbench
