#include "integrity/interpreter_snapshot.hpp"

#include <pybind11/eval.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "integrity/model_seal.hpp"
#include "exec/process_tree.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// Only callables and classes are compared: plain values (flags, counters, caches) change
// legitimately as torch initialises itself; functions do not.
constexpr const char* kSnapshotCode = R"(
import builtins, gc, importlib, sys, threading, time, types, warnings
import torch

_COMPILE_STACK = tuple('torch.' + n for n in (
    '_dynamo', '_inductor', 'fx', '_functorch', '_subclasses', '_higher_order_ops', 'export', '_export',
    'onnx', 'utils._sympy', '_prims', '_refs', '_decomp', '_logging', '_guards', 'testing', 'distributed',
    'compiler', '_library', 'utils._pytree', 'utils._triton', '_lazy'))

def _targets():
    """(owner, namespace, sealed): sealed namespaces also count attributes added since."""
    # Not sealed: libraries whose new names shadow nothing torch's Python code reads.
    names = ['time', 'builtins', 'gc', 'threading', 'numpy']
    # Sealed, so a name added there counts too: added to a module's namespace it shadows a
    # builtin for every function defined there, or replaces _VF's forwarding. These are what the
    # reference's ops and the harness read; torch.manual_seed's path (a spy there learns every
    # fresh seed as the harness builds each input set and computes the output before the call),
    # what torch.einsum and Tensor's Python methods call, read through their modules' globals.
    sealed_names = ['torch', 'torch.nn.functional', 'torch.cuda', 'torch.linalg', 'torch.fft',
                    'torch.special', 'torch.autograd', 'torch.backends.cudnn', 'torch._C', 'torch._C._nn',
                    'torch.cuda.graphs', 'torch.utils._device', 'torch.random', 'torch._VF',
                    'torch.functional', 'torch._tensor', 'torch.cuda.random', 'torch.mps', 'torch.xpu',
                    'torch.mtia']
    out = []
    for group, is_sealed in ((names, False), (sealed_names, True)):
        for name in group:
            try:
                out.append((name, vars(importlib.import_module(name)), is_sealed))
            except Exception:
                pass
    # torch.nn's modules (nn.Linear's forward reads torch.nn.modules.linear.F: a proxy put there
    # slows the reference), sealed.
    for name in sorted(n for n in list(sys.modules) if n.startswith('torch.nn.modules.')):
        out.append((name, vars(sys.modules[name]), True))
    # Every other torch module loaded by now, by identity (~15 ms): the reference's ops reach
    # modules no list names (F.cross_entropy reads torch.nn._reduction.get_enum, nn.LSTM
    # torch.nn.utils.rnn), and any of them is writable through an alias. The compile stack is
    # left out: it rebinds its own globals as it compiles, and a slowed Inductor baseline is
    # baseline_cross_check's on CUDA.
    listed = {owner for owner, _, _ in out}
    for name in sorted(n for n in list(sys.modules) if n.startswith('torch.')):
        if name not in listed and not name.startswith(_COMPILE_STACK):
            module = sys.modules.get(name)
            if isinstance(module, types.ModuleType):
                out.append((name, vars(module), False))
    classes = [torch._C.TensorBase, torch.cuda.Event, torch.cuda.Stream, torch.cuda.graphs.CUDAGraph]
    # torch.Tensor (a method added there shadows TensorBase's C method the reference calls:
    # `Tensor.sum = slow` slowed the reference's `y.sum(dim=1)`, 4.4x paid on the CPU),
    # nn.Module and every module class of torch.nn (nn.Linear.forward patched slows the reference
    # that uses it while the candidate calls F.linear; a new Linear._call_impl shadows Module's),
    # the device context the harness builds inputs under, and the problem's own module and
    # classes (the reference Model): sealed.
    sealed = [torch.Tensor, torch.nn.Module] + [c for c in vars(torch.nn).values() if isinstance(c, type)]
    try:
        sealed.append(importlib.import_module('torch.utils._device').DeviceContext)
    except Exception:
        pass
    problem = sys.modules.get('kbench_problem')
    if problem is not None:
        out.append(('kbench_problem', vars(problem), True))
        sealed += [c for c in vars(problem).values() if isinstance(c, type) and c.__module__ == problem.__name__]
    seen = set()
    for group, is_sealed in ((classes, False), (sealed, True)):
        for cls in group:
            if id(cls) not in seen:
                seen.add(id(cls))
                out.append((cls.__module__ + '.' + cls.__qualname__, vars(cls), is_sealed))
    return out

_SIMPLE = (int, float, complex, str, bytes, bool, type(None))

def _watched(value, everything):
    """Functions, classes, descriptors and modules do not change as torch initialises itself;
    flags and caches do, so other values are watched only in the problem's module."""
    return everything or callable(value) or isinstance(value, (staticmethod, classmethod, property, types.ModuleType))

def _same(a, b):
    return a is b or (type(a) is type(b) and type(a) in _SIMPLE and a == b)

def _quiet(read):
    """Deprecated torch names warn when inspected: reading them is not the candidate's doing."""
    def quietly(*args):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return read(*args)
    return quietly

@_quiet
def _take():
    return {(owner, attr): value for owner, space, _ in _targets()
            for attr, value in list(space.items()) if _watched(value, owner == 'kbench_problem')}

def _submodule(value, attr):
    """A module bound under its own last name: what an import of a submodule adds to its parent.
    A module is not callable, so under another name it shadows no builtin."""
    return isinstance(value, types.ModuleType) and (getattr(value, '__name__', '') or '').rpartition('.')[2] == attr

def _keys():
    return {owner: set(space) for owner, space, sealed in _targets() if sealed}

@_quiet
def _patched(before, keys):
    now = {owner: space for owner, space, _ in _targets()}
    changed = []
    for (owner, attr), value in before.items():
        space = now.get(owner)
        if space is None:
            continue
        if attr not in space or not _same(space[attr], value):
            changed.append(owner + '.' + attr)
    for owner, known in keys.items():
        space = now.get(owner)
        if space is None:
            continue
        for attr in set(space) - known:
            if _submodule(space[attr], attr):
                continue  # torch imports its submodules lazily (torch._dynamo, torch.cuda.memory)
            if _watched(space[attr], owner == 'kbench_problem'):
                changed.append(owner + '.' + attr + ' (added)')
    return sorted(changed)

# Threads torch starts and restarts by itself, seen on the H200 after honest Triton candidates:
# Inductor's compile-worker pool timer (a Timer thread that quiesces the pool when idle).
_LIBRARY_THREAD_MODULES = ('torch._inductor.compile_worker.',)

def _library_thread(t):
    module = getattr(getattr(t, '_target', None), '__module__', None) or ''
    return module.startswith(_LIBRARY_THREAD_MODULES)

def _thread_names(idents):
    return [f'{t.name} ({getattr(getattr(t, "_target", None), "__qualname__", "?")})'
            for t in threading.enumerate()
            if t.ident not in idents and t.is_alive() and not _library_thread(t)]

def _aten_kernels():
    """'op key: where' of every non-Meta kernel of an aten operator registered outside torch's
    C++ files, or overridden (inactive) (~50 ms)."""
    out = []
    for name in torch._C._dispatch_get_all_op_names():
        if name.startswith('aten::'):
            for line in torch._C._dispatch_dump(name).splitlines():
                key, _, where = line.partition(': registered at ')
                if where and not key.startswith(('Meta', 'debug')) and (
                        not where.startswith('/pytorch/') or key.endswith('(inactive)')):
                    out.append(name + ' ' + key + ': ' + where.split(' :: ')[0])
    return sorted(out)

def _described(value):
    if callable(value) and hasattr(value, '__qualname__'):
        return f'{getattr(value, "__module__", "?")}.{value.__qualname__} at {id(value):#x}'
    return repr(value)[:200]

def _triton_settings():
    """Triton's process-wide settings (triton.knobs). Its launch hooks run inside every Triton
    launch, the Inductor baseline's included: Inductor's launchers take them from here, so a
    hook that waits slows that baseline. Interpret mode and the compile options change what
    its kernels are. A value set on a namespace lands in its __dict__; the hook chains are
    class-level objects, compared by their lists."""
    try:
        knobs = importlib.import_module('triton.knobs')
    except Exception:
        return 'no triton'
    out = []
    for name, space in sorted(vars(knobs).items()):
        if not isinstance(space, knobs.base_knobs):
            continue
        out.append((name, id(space), sorted((k, _described(v)) for k, v in vars(space).items())))
        for attr, value in sorted(vars(type(space)).items()):
            if isinstance(value, knobs.HookChain):
                out.append((name, attr, id(value), [_described(c) for c in value.calls]))
            elif attr.endswith('_hook'):
                out.append((name, attr, _described(value)))
    compiled = getattr(importlib.import_module('triton.compiler'), 'CompiledKernel', None)
    for attr in ('launch_enter_hook', 'launch_exit_hook'):
        out.append(('CompiledKernel', attr, _described(getattr(compiled, attr, None))))
    return out

# Global state that changes what the reference and the baselines run in this process without
# replacing any function: nn.Module's global hooks (a pre-hook that slows the reference, a hook
# that rewrites its outputs), torch function and dispatch modes (which see every input built),
# grad, anomaly and autocast modes, CPU threads, numerics. The harness set its values before
# the snapshot (problem_context.cpp); a candidate may change them only inside its own calls.
def _state():
    out = global_hooks()  # model_seal.hpp's kHookDescriptionCode, run first in this scope
    backends = torch.backends
    probes = [
        ('torch function modes', lambda: torch._C._len_torch_function_stack()),
        # Kernels registered for aten operators since (a slow Python CPU clamp for the reference),
        # read from the dispatcher itself: torch.library._impls is a Python set a candidate can
        # edit, and torch._C._dispatch_library registers without it (red-teaming, 3rd pass).
        # Torch registers only Meta kernels there by itself, Inductor only prims.
        ('aten kernels', _aten_kernels),
        ('torch dispatch modes', lambda: torch._C._len_torch_dispatch_stack()),
        # The dispatcher's thread-local key sets (torch._C._EnablePythonDispatcher() sends every
        # op through Python) and the profiler's per-op callbacks: both slow every reference op.
        ('dispatch TLS include set', torch._C._dispatch_tls_local_include_set),
        ('dispatch TLS exclude set', torch._C._dispatch_tls_local_exclude_set),
        ('profiler enabled', torch._C._autograd._profiler_enabled),
        ('torch.is_grad_enabled()', torch.is_grad_enabled),
        ('torch.is_inference_mode_enabled()', torch.is_inference_mode_enabled),
        ('torch.is_anomaly_enabled()', torch.is_anomaly_enabled),
        ('torch.is_autocast_enabled("cpu")', lambda: torch.is_autocast_enabled('cpu')),
        ('torch.is_autocast_enabled("cuda")', lambda: torch.is_autocast_enabled('cuda')),
        ('torch.get_num_threads()', torch.get_num_threads),
        ('torch.get_num_interop_threads()', torch.get_num_interop_threads),
        ('torch.get_default_dtype()', torch.get_default_dtype),
        ('torch.get_float32_matmul_precision()', torch.get_float32_matmul_precision),
        ('torch.are_deterministic_algorithms_enabled()', torch.are_deterministic_algorithms_enabled),
        ('torch.backends.cudnn.enabled', lambda: backends.cudnn.enabled),
        ('torch.backends.cudnn.benchmark', lambda: backends.cudnn.benchmark),
        ('torch.backends.cudnn.deterministic', lambda: backends.cudnn.deterministic),
        ('torch.backends.cudnn.allow_tf32', lambda: backends.cudnn.allow_tf32),
        ('torch.backends.cuda.matmul.allow_tf32', lambda: backends.cuda.matmul.allow_tf32),
        ('torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction',
         lambda: backends.cuda.matmul.allow_fp16_reduced_precision_reduction),
        ('torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction',
         lambda: backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
        ('torch.backends.mkldnn.enabled', lambda: backends.mkldnn.enabled),
        # Kernel choices of the reference's ops, also on the CPU (flash SDPA off: its math path).
        ('torch.backends.cuda sdp', lambda: (backends.cuda.flash_sdp_enabled(), backends.cuda.mem_efficient_sdp_enabled(),
                                             backends.cuda.math_sdp_enabled(), backends.cuda.cudnn_sdp_enabled(),
                                             backends.cuda.fp16_bf16_reduction_math_sdp_allowed())),
        ('torch.backends.mha.get_fastpath_enabled()', lambda: backends.mha.get_fastpath_enabled()),
        ('torch.backends.opt_einsum', lambda: (backends.opt_einsum.enabled, backends.opt_einsum.strategy)),
        ('torch.backends.mkldnn.deterministic', lambda: backends.mkldnn.deterministic),
        ('torch.backends.cuda.preferred_linalg_library()', lambda: backends.cuda.preferred_linalg_library()),
        ('torch.backends.cuda.preferred_blas_library()', lambda: backends.cuda.preferred_blas_library()),
        ('torch.backends.cuda.matmul.allow_fp16_accumulation', lambda: backends.cuda.matmul.allow_fp16_accumulation),
        ('torch.backends.cudnn.benchmark_limit', lambda: backends.cudnn.benchmark_limit),
        ('torch.get_deterministic_debug_mode()', torch.get_deterministic_debug_mode),
        ('torch.utils.deterministic.fill_uninitialized_memory',
         lambda: importlib.import_module('torch.utils.deterministic').fill_uninitialized_memory),
        ('fp32 precisions', lambda: (backends.fp32_precision, backends.mkldnn.matmul.fp32_precision,
                                     backends.mkldnn.conv.fp32_precision, backends.mkldnn.rnn.fp32_precision,
                                     backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision)),
        ('cpu fp16 reduced precision', torch._C._get_cpu_allow_fp16_reduced_precision_reduction),
        ('triton.knobs (launch hooks, interpret, compile options)', _triton_settings),
        # A warning or an error on every synchronising op of the baselines. Reading it starts
        # CUDA, so only where CUDA runs already (setting it starts CUDA too; unset, it is 0).
        ('torch.cuda.get_sync_debug_mode()',
         lambda: torch.cuda.get_sync_debug_mode() if torch.cuda.is_initialized() else 0),
        # The caching allocator recording a stack trace at every allocation: each of the eager
        # baseline's intermediates then costs a stack walk, a fused candidate's fewer do not.
        ('CUDA allocator history', lambda: torch.cuda.is_initialized() and torch._C._cuda_isHistoryEnabled()),
        # cuFFT's plan cache per device: at size 0 every FFT of the baselines plans again.
        ('torch.backends.cuda.cufft_plan_cache max_size',
         lambda: [backends.cuda.cufft_plan_cache[i].max_size for i in range(torch.cuda.device_count())]
         if torch.cuda.is_initialized() else None),
    ]
    for name, probe in probes:
        try:
            out[name] = repr(probe())
        except Exception:
            pass  # not in this torch build
    return out

def _state_changes(before):
    now = _state()
    return [f'{name}: {before[name]} -> {now.get(name, "gone")}' for name in sorted(before)
            if now.get(name) != before[name]]

snapshot = _take()
snapshot_keys = _keys()
state = _state()
threads = {t.ident for t in threading.enumerate()}
)";

std::set<long> native_thread_ids() {
  std::set<long> ids;
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ids.insert(std::strtol(it->path().filename().c_str(), nullptr, 10));
  return ids;
}

// This process as /proc names it: in the sandbox's PID namespace getpid() is small (2), while the
// /proc it reads is the host's, where pid 2 is kthreadd (every kernel thread its child).
pid_t proc_self_pid() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self", error);
  return error ? getpid() : pid_t(std::strtol(self.c_str(), nullptr, 10));
}

std::string thread_name(long tid) {
  std::string name;
  std::getline(std::ifstream("/proc/self/task/" + std::to_string(tid) + "/comm"), name);
  return name;
}

}  // namespace

InterpreterSnapshot::InterpreterSnapshot() {
  scope_["__builtins__"] = py::module_::import("builtins");
  py::exec(kHookDescriptionCode, scope_);
  py::exec(kSnapshotCode, scope_);
  native_threads_ = native_thread_ids();
  processes_ = running_descendants(proc_self_pid());
}

std::vector<std::string> InterpreterSnapshot::patched() const {
  py::list names = scope_["_patched"](scope_["snapshot"], scope_["snapshot_keys"]);
  std::vector<std::string> out;
  for (auto name : names) out.push_back(name.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::state_changes() const {
  py::list changes = scope_["_state_changes"](scope_["state"]);
  std::vector<std::string> out;
  for (auto change : changes) out.push_back(change.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::new_threads() const {
  py::list names = scope_["_thread_names"](scope_["threads"]);
  std::vector<std::string> out;
  for (auto name : names) out.push_back(name.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::new_native_threads() const {
  std::vector<std::string> out;
  for (long tid : native_thread_ids())
    if (!native_threads_.count(tid)) out.push_back(thread_name(tid) + " (" + std::to_string(tid) + ")");
  return out;
}

std::vector<std::string> InterpreterSnapshot::new_processes() const {
  std::vector<std::string> out;
  // A pid reused by another process since the snapshot is new too: compare the names as well.
  for (const auto& [pid, name] : running_descendants(proc_self_pid())) {
    const auto before = processes_.find(pid);
    if (before == processes_.end() || before->second != name)
      out.push_back(name + " (" + std::to_string(pid) + ")");
  }
  return out;
}

}  // namespace kbench
