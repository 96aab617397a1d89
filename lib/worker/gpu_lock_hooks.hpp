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
// The drain alone (after `import torch`): for the judge, which compiles nothing and should not
// pay triton's import.
void install_gpu_lock_drain(const Device& device);

// Replaces `module.name` by a wrapper that runs it with the lock dropped (GpuLockScope(none))
// when the lock is held shared, the caller is the thread that installed it and `capturing()` is
// false; otherwise it calls through. What install_gpu_lock_hooks does to triton.compile.
void drop_lock_during(pybind11::module_ module, const char* name, std::function<bool()> capturing);
// Replaces the method `cls.wait(self, scope)` (Inductor's AsyncCompile.wait: the generated
// module waits for the kernels its compile subprocesses build) by one that first waits for the
// scope's pending pool futures with the lock dropped, under the same conditions as above, then
// calls the original with the lock held again, so what the original does with the results
// (loading each kernel's module on the device) happens under the lock. Pending: values that are
// instances of `future_class` whose `future` is a concurrent.futures.Future not done yet; with
// none the original is called through and nothing is dropped.
void drop_lock_during_pool_waits(pybind11::object cls, pybind11::object future_class, std::function<bool()> capturing);
// Where Inductor is about to compile in this process (the Inductor baseline): its
// AsyncCompile.wait wrapped as above. Not at start: importing torch._inductor costs every worker,
// most of which never compile with Inductor. A no-op without install_gpu_lock_hooks' lock, on a
// second call, and where this torch has no AsyncCompile.wait or CodeCacheFuture (guarded by
// feature, not by version).
void install_inductor_wait_hook();
// How many calls dropped the lock so far (both wrappers).
int lock_drops();

// protocol.gpu_lock_wait_s, gpu_lock_yields, gpu_lock_compile_releases and the hold times
// (gpu_lock_held_shared_s, gpu_lock_held_exclusive_s, gpu_lock_longest_shared_s; workers with a lock).
void report_gpu_lock(nlohmann::json& protocol);

}  // namespace kbench
