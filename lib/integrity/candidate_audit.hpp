#pragma once
// A CPython audit hook (PEP 578) over the candidate's own frames, for a candidate the static
// policy judged free of native code (so it runs in one process with its expected values). Any
// `ctypes.*` event raised while one of its frames is on the stack means it reached native code
// anyway, through text some allowed library evaluated (red-teaming 2026-12-03: a nested string
// annotation evaluated by functools.singledispatch gave `__import__`, then ctypes rewrote the
// clock). Installed once per process before the import; Python cannot remove it. It records the
// first such event and raises nothing inside torch: the integrity monitor rejects the job at its
// next look (`native_isolation`). The same for text run as code by typing, torch.fx or
// torch.package while a candidate frame is on the stack (the evaluated-annotation gadget brought
// numpy back unnamed, 21x paid: numpy_gadget_forgery.py), and for Triton's compiler of host modules called from the
// candidate's own frame (triton.runtime.build: any C source compiled and imported; red-teaming
// 2026-12-05 rewrote the harness's samples that way, 18x paid). Not complete: ctypes calls on raw
// addresses raise no event, and a C compiler reached some other way is not seen.
#include <optional>
#include <string>

namespace kbench::candidate_audit {

// Starts watching: frames whose globals' `__name__` is `module_name` are the candidate's.
void install(const std::string& module_name);

// "ctypes.dlopen at line 12" (or the Triton build's line) for the first event seen, or nullopt.
std::optional<std::string> native_use();

// Forgets the event seen: a worker watches one job, a test several.
void forget();

}  // namespace kbench::candidate_audit
