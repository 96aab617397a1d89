"""Static analysis of a kbench candidate before it is imported: import/API policy, kernels.

Embedded into the kbench binary at build time (lib/integrity/static_analysis.cpp) and run in the
worker's interpreter. It only parses the source with `ast`: no candidate code runs. Entry point:
analyze(source_bytes) -> dict. Each rule and the exploit it stops: docs/integrity-static.md.
"""
import ast
import importlib.util
import re
import warnings

CHECK = "forbidden_api"

# Top-level modules a candidate may import. Kernels need torch and triton; the rest are pure
# helpers that reach neither the process, the interpreter's internals nor the harness.
# numpy: host-side constants (its raw-memory doors, .ctypes/ctypeslib, are forbidden names).
# einops: tensor reshaping only.
ALLOWED_MODULES = frozenset({
    "torch", "triton", "math", "numbers", "typing", "functools", "itertools", "dataclasses",
    "collections", "operator", "enum", "abc", "__future__", "numpy", "einops",
})

# Builtins that run code from strings, open files or expose namespaces by name; a candidate
# could use them to reach anything the allowlist keeps out.
FORBIDDEN_BUILTINS = {
    "eval": "runs code built at run time",
    "exec": "runs code built at run time",
    "compile": "builds code at run time",
    "__import__": "imports modules by computed name",
    "open": "file access (stored results, /dev/shm caches, /proc/self/mem)",
    "globals": "exposes a namespace by name",
    "locals": "exposes a namespace by name",
    "vars": "exposes a namespace by name",
    "breakpoint": "starts a debugger",
    "__builtins__": "the builtins namespace gives every forbidden builtin by name",
}

# Attribute names forbidden on any object: interpreter internals (frames, code objects,
# namespaces, the class hierarchy) that lead to the harness's objects or to any module.
FORBIDDEN_ATTRS = {
    "ctypes": "raw memory access (numpy's array.ctypes too)",
    "ctypeslib": "raw memory access",
    "f_back": "walks the caller's frames (reads the harness's locals)",
    "f_globals": "reads a frame's globals", "f_locals": "reads a frame's locals",
    "f_builtins": "reads a frame's builtins", "f_code": "reads a frame's code",
    "gi_frame": "reaches a frame", "cr_frame": "reaches a frame", "ag_frame": "reaches a frame",
    "tb_frame": "reaches a frame", "tb_next": "walks a traceback's frames",
    "__traceback__": "reaches the harness's frames through a traceback",
    "__subclasses__": "reaches every class of the interpreter",
    "__bases__": "walks the class hierarchy", "__base__": "walks the class hierarchy",
    "__mro__": "walks the class hierarchy",
    "__globals__": "reads a function's module namespace", "__code__": "reads or swaps code",
    "__closure__": "reads captured variables", "__builtins__": "the builtins namespace",
    "__dict__": "string-keyed access to a namespace (hides which names are used)",
    "__getattribute__": "attribute access by computed name",
    "__setattr__": "attribute writes that bypass the monkeypatch check",
    "__delattr__": "attribute deletion", "__import__": "imports by computed name",
    "__loader__": "reaches the import machinery", "__spec__": "reaches the import machinery",
    "__reduce__": "pickling hooks", "__reduce_ex__": "pickling hooks",
    "__self__": "a builtin function's __self__ is the builtins module",
    # Tensor subclasses whose data is computed later, inside the untimed checker (exploit 3).
    "_make_subclass": "builds a tensor subclass (deferred/lazy outputs)",
    "_make_wrapper_subclass": "builds a tensor subclass (deferred/lazy outputs)",
    "__torch_function__": "intercepts torch calls (deferred/lazy outputs)",
    "__torch_dispatch__": "intercepts torch calls (deferred/lazy outputs)",
    "load_library": "loads an arbitrary shared library",
    # Files through allowed modules: ndarray.tofile, torch's storages (from_file maps or reads one).
    "tofile": "writes files", "from_file": "reads or maps files",
    "compile_module_from_src": "compiles C source and loads it (native code)",
}
# Triton's launch and compile hooks: called around every Triton launch of the process, the
# Inductor baseline's included (triton_launch_hook_slow_inductor.py).
FORBIDDEN_ATTRS.update({
    name: "a Triton hook run inside every launch, the Inductor baseline's too"
    for name in ("launch_enter_hook", "launch_exit_hook", "kernel_load_start_hook", "kernel_load_end_hook",
                 "jit_cache_hook", "jit_post_compile_hook", "add_stages_inspection_hook")
})

# Protocols that turn an address into an array: numpy.asarray of an object whose
# __array_interface__ names any address is a view of it (read and write), no ctypes needed
# (numpy_sample_forgery.py rewrote the harness's timing samples this way, 17x paid). Refused as
# names, attributes, defs and strings; a computed spelling escapes this list, so a candidate that
# imports numpy is also placed apart from the expected values (NATIVE_PREFIXES below).
RAW_MEMORY_PROTOCOLS = {
    name: "an array over any address of the process (reads and writes the harness's memory)"
    for name in ("__array_interface__", "__array_struct__", "__cuda_array_interface__",
                 "__dlpack__", "__dlpack_device__")
}
FORBIDDEN_ATTRS.update(RAW_MEMORY_PROTOCOLS)
# Storage constructors over a raw address, a file or another process's memory.
FORBIDDEN_ATTRS.update({
    name: "builds a storage over a raw address, a file or shared memory"
    for name in ("_new_with_weak_ptr", "_new_with_file", "_set_from_file", "_write_file",
                 "_set_cdata", "_new_shared", "_new_shared_cuda", "_new_shared_fd_cpu",
                 "_new_shared_filename_cpu", "_new_using_fd_cpu", "_new_using_filename_cpu",
                 "_share_cuda_", "_share_fd_cpu_", "_share_filename_cpu_")
})

# Modules that are forbidden also as an attribute of anything (torch itself imports os and sys,
# so `torch.os.system` exists; other objects lead there too).
FORBIDDEN_MODULE_ATTRS = {
    "os": "process and file access", "sys": "interpreter internals (sys._getframe, sys.modules)",
    "gc": "finds the harness's objects, e.g. the expected outputs (gc.get_objects)",
    "inspect": "walks frames and reads sources of the harness",
    "subprocess": "runs other programs", "socket": "network access",
    "threading": "background threads escape the timed region",
    "_thread": "background threads escape the timed region",
    "multiprocessing": "other processes escape the timed region",
    "concurrent": "background workers escape the timed region",
    "signal": "signal handlers can interrupt or fake the harness",
    "importlib": "imports by computed name", "builtins": "the builtins namespace",
}

# Qualified names (after resolving import aliases) that a candidate must not use. A prefix
# matches everything below it.
FORBIDDEN_QUALIFIED = {
    # Code given as text and run by a library: the rest of this policy never sees it (a string
    # annotation `"lambda n: __import__(n)"` evaluated by typing.get_type_hints reached ctypes).
    "typing.get_type_hints": "evaluates string annotations as code",
    "typing.ForwardRef": "evaluates a string as code", "typing._eval_type": "evaluates strings as code",
    "typing.evaluate_forward_ref": "evaluates a string as code",
    "torch.utils.benchmark": "runs code given as strings (Timer stmt/setup)",
    "torch.fx.graph_module._exec_with_source": "runs source text",
    # The baseline is Inductor: a candidate calling it measures the baseline, not its kernel.
    "torch.compile": "calls TorchInductor, the baseline itself",
    "torch._dynamo": "TorchDynamo/Inductor internals", "torch._inductor": "Inductor internals",
    # The same stack under public names: torch.compiler.compile is torch.compile, and its cache
    # artifacts (load_cache_artifacts, load_compiled_function) load compiled code from bytes.
    "torch.compiler": "TorchDynamo/Inductor (the baseline itself; loads compiled artifacts)",
    "torch.export": "TorchDynamo export (the compile stack; loads and saves programs)",
    "torch._export": "TorchDynamo export internals", "torch._functorch": "the compile stack's internals",
    # Private bindings can switch off checks, reach the allocator or the dispatcher.
    "torch._C": "torch's private C bindings",
    # Registering kernels for aten ops changes what the reference and the baselines run.
    "torch.library": "overrides torch operators (changes the reference and the baselines)",
    "torch.ops.load_library": "loads an arbitrary shared library",
    # Triton compiles C source into a module and imports it (its launchers): any source, native code.
    "triton.runtime.build": "compiles C source and loads it (native code)",
    # Process-wide: its hooks run in the Inductor baseline's launches, interpret mode and the
    # compile options change its kernels, setenv writes the environment.
    "triton.knobs": "Triton's process-wide settings (hooks in the Inductor baseline's launches)",
    "triton.backends.nvidia.driver": "Triton's driver, which compiles and loads C source (native code)",
    "triton.backends.amd.driver": "Triton's driver, which compiles and loads C source (native code)",
    "torch.utils._python_dispatch": "intercepts torch calls",
    "torch.overrides": "intercepts torch calls",
    "torch.multiprocessing": "other processes escape the timed region",
    # DataLoader workers are processes forked from the worker: candidate code (the dataset's
    # __getitem__) runs there beside the baselines' timed calls, gated by a shared-memory flag
    # (dataloader_worker_spinner.py). Datasets alone do nothing.
    "torch.utils.data.DataLoader": "its workers are other processes (escape the timed region)",
    "torch.utils.data.dataloader": "its workers are other processes (escape the timed region)",
    "torch.utils.data._utils": "DataLoader's worker processes and their queues",
    # TorchScript is a second interpreter: torch.jit.fork runs a task on torch's inter-op pool,
    # and a @torch.jit.ignore function called there runs Python on a thread threading never
    # lists (interop_gil_spinner.py held the GIL through the eager baseline's calls: 8x paid);
    # it also evaluates `# type:` comments as code and loads programs from files.
    "torch.jit": "TorchScript: runs Python on torch's thread pool, unseen (and evaluates type comments)",
    "torch._jit_internal": "TorchScript internals (evaluates strings, runs Python on torch's thread pool)",
    "torch.distributed": "other processes and threads (RPC agents run Python on their own threads)",
    "torch.hub": "downloads and imports code",
    "torch.package": "imports code from archives",
    # Work on a side stream escapes event timing (exploit 1); KernelBench-format forward calls
    # need only the current stream.
    "torch.cuda.Stream": "side stream", "torch.cuda.stream": "side stream",
    "torch.cuda.ExternalStream": "side stream", "torch.cuda.set_stream": "side stream",
    "torch.cuda.StreamContext": "side stream", "torch.Stream": "side stream",
    "torch.cuda.streams": "side stream",
    # Global numerics: TF32 or a different default dtype changes precision for everyone.
    "torch.set_float32_matmul_precision": "changes fp32 matmul precision (TF32)",
    "torch.backends.cudnn.flags": "changes cuDNN precision settings (TF32)",
    "torch.set_default_dtype": "changes the default dtype",
    "torch.set_default_device": "changes the default device",
    "torch.set_default_tensor_type": "changes the default dtype",
    "torch.set_flush_denormal": "changes float numerics",
    "torch.set_num_threads": "changes the baselines' CPU threads",
    "torch.backends.cudnn.set_flags": "changes cuDNN settings (slower or different baseline convolutions)",
    "torch.use_deterministic_algorithms": "changes which kernels the baselines run",
    "torch.cuda.set_per_process_memory_fraction": "starves the baselines' caching allocator",
    "torch.cuda.memory.set_per_process_memory_fraction": "starves the baselines' caching allocator",
    "torch.cuda.memory._set_allocator_settings": "changes the baselines' caching allocator",
    # A stack trace recorded at every allocation slows the baselines' intermediates.
    "torch.cuda.memory._record_memory_history": "slows every allocation of the baselines (stack traces)",
    "torch.cuda.memory._record_memory_history_impl": "slows every allocation of the baselines (stack traces)",
    "torch.cuda.memory._record_memory_history_legacy": "slows every allocation of the baselines (stack traces)",
    "torch.set_num_interop_threads": "changes the baselines' CPU threads",
    # Files: caches across calls and jobs (exploit 5); unpickling runs code.
    "torch.save": "writes files", "torch.load": "reads files (unpickling runs code)",
    "torch.from_file": "reads files", "numpy.load": "reads files (unpickling runs code)",
    "numpy.save": "writes files", "numpy.savez": "writes files", "numpy.fromfile": "reads files",
    "numpy.memmap": "maps files",
    "numpy.loadtxt": "reads files (/proc/self/maps: where the harness's memory is)",
    "numpy.genfromtxt": "reads files", "numpy.fromregex": "reads files",
    "numpy.savetxt": "writes files", "numpy.DataSource": "reads files and URLs",
    "numpy.lib.npyio": "reads and writes files", "numpy.lib._npyio_impl": "reads and writes files",
    "numpy.lib.format": "reads and writes files", "numpy.lib._datasource": "reads files and URLs",
    "numpy.rec.fromfile": "reads files", "numpy.core.records.fromfile": "reads files",
    "numpy._core.records.fromfile": "reads files",
    # Unlike torch's as_strided, numpy's does not check the view against its buffer.
    "numpy.lib.stride_tricks.as_strided": "views memory outside the array (any address)",
    "numpy.lib._stride_tricks_impl.as_strided": "views memory outside the array (any address)",
}

# Tensor classes a candidate must not subclass (lazy outputs computed in the checker).
TENSOR_CLASSES = {"torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase",
                  "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"}
# Names Python provides without an import; binding them by import must not hide the builtin.
BUILTIN_NAMES = set(FORBIDDEN_BUILTINS) | {"getattr", "setattr", "delattr", "type"}

# C++/CUDA text in string constants (load_inline sources) is checked by native_source_findings()
# of native_source_policy.py, which runs first in this namespace (lib/CMakeLists.txt embeds both).

JIT_NAMES = {"triton.jit", "triton.language.jit", "triton.runtime.jit.jit"}
KERNEL_WRAPPERS = {"triton.autotune", "triton.heuristics", "triton.runtime.autotune",
                   "triton.runtime.heuristics"}
LOAD_INLINE = "torch.utils.cpp_extension.load_inline"
# TORCH_LIBRARY(ns, m) opens a block that defines operators torch.ops.ns.<op> (m.def("op(...")).
_LIBRARY_BLOCK = re.compile(r"\bTORCH_LIBRARY(?:_FRAGMENT)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
# Methods Python calls without naming them: reaching a class reaches these.
IMPLICIT_METHODS = {"forward", "__call__", "__getitem__", "__iter__", "__next__", "__enter__",
                    "__exit__"}
ATTR_CALLS = {"getattr", "setattr", "delattr"}


# Names under which torch's own modules hold numpy (`torch.nn.functional.np`, `torch.storage.np`,
# `torch.utils.data._utils.numpy`): numpy reached without importing it.
_NUMPY_REEXPORTS = ("np", "numpy")


def _canonical(qualname):
    """torch's own modules re-export it (`torch.nn.functional.torch`, `torch.functional.torch`):
    a name reached through such a path is the name below its last `torch`, so that
    `torch.nn.functional.torch.set_num_threads` meets the rules of `torch.set_num_threads`. The
    same for numpy: `torch.nn.functional.np.asarray` is `numpy.asarray` (its placement and its
    forbidden doors)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "torch":
            return ".".join(parts[i:])
        if parts[i] in _NUMPY_REEXPORTS and parts[0] != "numpy":
            return ".".join(["numpy"] + parts[i + 1:])
    return qualname


def _plain_annotation(node):
    """A type written as text: names, dotted names, subscripts, unions, None. Anything else in a
    string annotation (a lambda, a call) is code that typing would evaluate."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_annotation(node.value)
    if isinstance(node, ast.Subscript):
        return _plain_annotation(node.value) and _plain_annotation(node.slice)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_plain_annotation(e) for e in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _plain_annotation(node.left) and _plain_annotation(node.right)
    if isinstance(node, ast.Constant):
        return node.value is None or node.value is Ellipsis or isinstance(node.value, (str, int))
    return False


def _annotations(node):
    """The annotation expressions of a function or an annotated assignment."""
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    a = node.args
    found = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs if x.annotation is not None]
    found += [x.annotation for x in (a.vararg, a.kwarg) if x is not None and x.annotation is not None]
    return found + ([node.returns] if node.returns is not None else [])


def _is_str(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _dotted(node):
    """'a.b.c' for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Module:
    """The parsed candidate: import aliases and the module's definitions."""

    def __init__(self, tree, text):
        self.tree = tree
        self.lines = text.splitlines()
        self.aliases = {}  # local name -> qualified name of what an import bound
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.split(".")[0]
                    self.aliases[local] = a.name if a.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = node.module + "." + a.name
        # An import anywhere (even in a function never called) must not turn `getattr` or
        # `eval` into "not the builtin" for the rest of the file.
        for name in BUILTIN_NAMES:
            self.aliases.pop(name, None)
        # `T = torch.Tensor`, `cuda = torch.cuda`: plain aliases of imported objects, anywhere.
        for _ in range(3):
            for node in ast.walk(tree):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Name)
                        and node.targets[0].id not in self.aliases
                        and node.targets[0].id not in BUILTIN_NAMES):
                    q = self.qualname(node.value)
                    if q:
                        self.aliases[node.targets[0].id] = q

    def qualname(self, node):
        """Qualified name of an expression rooted at an imported name, else None."""
        if isinstance(node, ast.Call) and self._is_builtin(node.func, "getattr") \
                and len(node.args) >= 2 and _is_str(node.args[1]):
            base = self.qualname(node.args[0])
            return _canonical(base + "." + node.args[1].value) if base else None
        dotted = _dotted(node)
        if not dotted:
            return None
        root, _, rest = dotted.partition(".")
        if root not in self.aliases:
            return None
        return _canonical(self.aliases[root] + ("." + rest if rest else ""))

    def _is_builtin(self, node, name):
        # Conservative: a local function named like the builtin is treated as the builtin.
        return isinstance(node, ast.Name) and node.id == name

    def snippet(self, lineno):
        line = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        return line if len(line) <= 100 else line[:97] + "..."


def _forbidden_prefix(qualname, components=True):
    """Why a qualified name is forbidden ('prefix: reason' when a parent is), else None.
    components: also a forbidden module or attribute anywhere below the top (torch.os)."""
    for prefix, why in FORBIDDEN_QUALIFIED.items():
        if qualname == prefix:
            return why
        if qualname.startswith(prefix + "."):
            return f"{prefix}: {why}"
    for part in qualname.split(".")[1:] if components else []:
        why = FORBIDDEN_MODULE_ATTRS.get(part) or FORBIDDEN_ATTRS.get(part)
        if why:
            return f"{part}: {why}"
    return None


class _Policy:
    """Import/API policy: every violation with its line."""

    def __init__(self, module):
        self.m = module
        self.findings = []

    def add(self, node, what, why, line=None):
        line = line or node.lineno
        self.findings.append((line, f"{what}: {why} (line: {self.m.snippet(line)})"))

    def run(self):
        tree = self.m.tree
        call_funcs = set()
        inner_attrs = set()  # Attribute nodes that are the base of a longer chain
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                call_funcs.add(id(node.func))
            elif isinstance(node, ast.Attribute):
                inner_attrs.add(id(node.value))
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if body and isinstance(body[0], ast.Expr) and _is_str(body[0].value):
                    docstrings.add(id(body[0].value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.check_import(node, a.name)
            elif isinstance(node, ast.ImportFrom):
                self.check_import_from(node)
            elif isinstance(node, ast.Name):
                self.check_name(node, call_funcs)
            elif isinstance(node, ast.Attribute):
                self.check_attribute(node, id(node) in inner_attrs)
            elif isinstance(node, ast.Call):
                self.check_call(node)
            elif isinstance(node, ast.ClassDef):
                self.check_class(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name in ("__torch_function__", "__torch_dispatch__") \
                        or node.name in RAW_MEMORY_PROTOCOLS:
                    self.add(node, f"def {node.name}", FORBIDDEN_ATTRS[node.name])
            elif _is_str(node) and id(node) not in docstrings:
                for at, what, why in native_source_findings(node.value):
                    # the line of the construct itself (exact for raw strings)
                    self.add(node, what, why, node.lineno + node.value.count("\n", 0, at))
                for name, why in RAW_MEMORY_PROTOCOLS.items():
                    if name in node.value:  # type("V", (), {"__array_interface__": ...})
                        self.add(node, repr(name), why)
            if isinstance(node, (ast.Attribute, ast.Subscript)) and \
                    isinstance(node.ctx, (ast.Store, ast.Del)):
                self.check_store(node)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                    and node.id in ("__torch_function__", "__torch_dispatch__"):
                self.add(node, f"{node.id} = ...", FORBIDDEN_ATTRS[node.id])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign)):
                for annotation in _annotations(node):
                    self.check_annotation(annotation)
        unique = sorted(set(self.findings))
        return [{"check": CHECK, "evidence": e, "line": line} for line, e in unique]

    def check_annotation(self, node):
        if not _is_str(node):
            return
        try:
            parsed = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            parsed = None
        if parsed is None or not _plain_annotation(parsed):
            self.add(node, f"string annotation {node.value[:40]!r}",
                     "code in an annotation (typing evaluates string annotations)")

    def check_import(self, node, name):
        top = name.split(".")[0]
        if top not in ALLOWED_MODULES:
            self.add(node, f"import {name}", f"'{top}' is not an allowed import "
                     "(the allowlist is in docs/integrity-static.md)")
            return
        why = _forbidden_prefix(name)
        if why:
            self.add(node, f"import {name}", why)

    def check_import_from(self, node):
        if node.level:
            self.add(node, "relative import", "a candidate is a single file")
            return
        self.check_import(node, node.module)
        if node.module.split(".")[0] not in ALLOWED_MODULES:
            return
        for a in node.names:
            if a.name == "*":
                self.add(node, f"from {node.module} import *",
                         "a star import hides which names are used")
                continue
            why = FORBIDDEN_ATTRS.get(a.name) or FORBIDDEN_MODULE_ATTRS.get(a.name) \
                or _forbidden_prefix(node.module + "." + a.name)
            if why:
                self.add(node, f"from {node.module} import {a.name}", why)

    def check_name(self, node, call_funcs):
        if node.id in RAW_MEMORY_PROTOCOLS:  # `__array_interface__ = property(...)` in a class
            self.add(node, node.id, RAW_MEMORY_PROTOCOLS[node.id])
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in FORBIDDEN_BUILTINS:
            self.add(node, node.id, FORBIDDEN_BUILTINS[node.id])
        elif node.id in ATTR_CALLS and id(node) not in call_funcs:
            self.add(node, node.id, "passed as a value, it hides which attribute is accessed")

    def check_attribute(self, node, inner):
        attr = node.attr
        base = self.m.qualname(node.value)
        why = FORBIDDEN_ATTRS.get(attr) or FORBIDDEN_MODULE_ATTRS.get(attr)
        if why:
            self.add(node, f"{base}.{attr}" if base else "." + attr, why)
        elif base is not None and not inner:  # forbidden components were flagged on their own nodes
            why = _forbidden_prefix(base + "." + attr, components=False)
            if why:
                self.add(node, base + "." + attr, why)

    def check_call(self, node):
        func = node.func
        if any(self.m._is_builtin(func, n) for n in ATTR_CALLS):
            name_arg = node.args[1] if len(node.args) >= 2 else None
            if name_arg is None or not _is_str(name_arg):
                self.add(node, f"{func.id}() with a computed name",
                         "hides which attribute is accessed; write obj.name instead")
                return
            attr = name_arg.value
            base = self.m.qualname(node.args[0])
            why = FORBIDDEN_ATTRS.get(attr) or FORBIDDEN_MODULE_ATTRS.get(attr)
            if why is None and base is not None:
                why = _forbidden_prefix(base + "." + attr)
            if why:
                self.add(node, f"{func.id}(..., {attr!r})", why)
            elif func.id != "getattr" and (base is not None or self._is_type_call(node.args[0])):
                self.add(node, f"{func.id}({base or 'type(...)'}, {attr!r})",
                         "monkeypatches an imported module or class")
            elif func.id != "getattr" and attr.startswith("__") and attr.endswith("__"):
                self.add(node, f"{func.id}(..., {attr!r})", "rewrites a special attribute")
            return
        if self.m.qualname(func) in ("operator.attrgetter", "operator.methodcaller"):
            self.add(node, self.m.qualname(func), "getattr in disguise; write obj.name instead")
        elif self.m._is_builtin(func, "type") and len(node.args) == 3 \
                and isinstance(node.args[1], (ast.Tuple, ast.List)):
            for b in node.args[1].elts:
                if self.m.qualname(b) in TENSOR_CLASSES:
                    self.add(node, f"type(..., ({self.m.qualname(b)}, ...), ...)",
                             "a tensor subclass can compute its data later, in the untimed checker")

    def _is_type_call(self, node):
        return isinstance(node, ast.Call) and self.m._is_builtin(node.func, "type")

    def check_store(self, node):
        if isinstance(node, ast.Attribute) and node.attr.startswith("__") \
                and node.attr.endswith("__"):
            self.add(node, f"assignment to .{node.attr}",
                     "rewrites a special attribute (e.g. __class__ turns outputs into lazy tensors)")
            return
        base = self.m.qualname(node.value)
        if base is not None:
            target = base + ("." + node.attr if isinstance(node, ast.Attribute) else "[...]")
            self.add(node, f"assignment to {target}",
                     "monkeypatches an imported module or class (timers, sync, numerics)")
        elif self._is_type_call(node.value):
            self.add(node, "assignment to an attribute of type(...)",
                     "monkeypatches a class (e.g. torch.Tensor)")

    def check_class(self, node):
        for b in node.bases:
            q = self.m.qualname(b)
            if q in TENSOR_CLASSES:
                self.add(node, f"class {node.name}({q})",
                         "a tensor subclass can compute its data later, in the untimed checker")


class _Kernels:
    """Kernels the file defines, and those reachable from ModelNew's forward."""

    def __init__(self, module):
        self.m = module
        tree = module.tree
        self.funcs = {}      # module-level function name -> node
        self.classes = {}    # class name -> ClassDef
        self.modvars = {}    # module-level name -> [value expressions]
        self.attr_values = {}  # attribute name -> values stored into `<obj>.<name>` anywhere
        self.kernels = {}    # kernel name -> line: jit-decorated defs, k = triton.jit(f)
        self.ext_functions = {}  # load_inline function name -> line
        self.ext_ops = {}        # "ns::op" registered by a load_inline source (TORCH_LIBRARY) -> line
        self.enclosing = {}      # id(node) -> innermost function definition holding it
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for sub in ast.walk(fn):
                    if sub is not fn:
                        self.enclosing[id(sub)] = fn  # inner definitions are walked later
        self.import_time = set()  # ids of load_inline calls that run at import (no def around)
        for node in tree.body:
            self._collect_top(node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                            self.attr_values.setdefault(sub.attr, []).append(node.value)
            elif isinstance(node, ast.Call) and self.m._is_builtin(node.func, "setattr") \
                    and len(node.args) == 3 and _is_str(node.args[1]):
                self.attr_values.setdefault(node.args[1].value, []).append(node.args[2])
            elif isinstance(node, ast.Call) and self.m.qualname(node.func) == LOAD_INLINE:
                for name in self._ext_names(node):
                    self.ext_functions.setdefault(name, node.lineno)
                for op in self._ext_ops(node):
                    self.ext_ops.setdefault(op, node.lineno)
                if id(node) not in self.enclosing:
                    self.import_time.add(id(node))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and self._has_jit(node.decorator_list):
                self.kernels.setdefault(node.name, node.lineno)

    def _collect_top(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.funcs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            self.classes[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        self.modvars.setdefault(sub.id, []).append(node.value)
                        if isinstance(t, ast.Name) and self._jit_wrapped(node.value):
                            self.kernels.setdefault(sub.id, node.lineno)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            # Definitions under `if`/`try` at module level (e.g. a guarded import) still count.
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self._collect_top(child)
            for handler in getattr(node, "handlers", []):
                for child in handler.body:
                    self._collect_top(child)

    def _is_jit(self, node):
        target = node.func if isinstance(node, ast.Call) else node
        q = self.m.qualname(target)
        return q in JIT_NAMES

    def _has_jit(self, decorators):
        return any(self._is_jit(d) for d in decorators)

    def _jit_wrapped(self, value):
        """triton.jit(f), triton.autotune(...)(triton.jit(f)) and the like."""
        if not isinstance(value, ast.Call):
            return False
        if self._is_jit(value.func):  # triton.jit(f), triton.jit(**options)(f)
            return True
        inner = value.func
        if isinstance(inner, ast.Call) and self.m.qualname(inner.func) in KERNEL_WRAPPERS:
            return any(self._jit_wrapped(a) or self._names_kernel(a) for a in value.args)
        return False

    def _names_kernel(self, node):
        return isinstance(node, ast.Name) and node.id in self.funcs \
            and self._has_jit(self.funcs[node.id].decorator_list)

    def _strings(self, node, depth=0):
        """String constants in an expression, following module-level names and, for a
        parameter of the enclosing function, the arguments of its calls in the file."""
        out = []
        scope = self.enclosing.get(id(node))
        for sub in ast.walk(node):
            if _is_str(sub):
                out.append(sub.value)
            elif isinstance(sub, ast.Name) and depth < 3:
                param = self._parameter(scope, sub.id)
                if param is not None:
                    for arg in self._arguments(scope, *param):
                        out.extend(self._strings(arg, depth + 1))
                elif sub.id in self.modvars:
                    for v in self.modvars[sub.id]:
                        out.extend(self._strings(v, depth + 1))
        return out

    @staticmethod
    def _parameter(fn, name):
        """(position, name) of parameter `name` of function `fn`, else None."""
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        positional = fn.args.posonlyargs + fn.args.args
        for i, a in enumerate(positional):
            if a.arg == name:
                return i, name
        if any(a.arg == name for a in fn.args.kwonlyargs):
            return None, name
        return None

    def _arguments(self, fn, position, name):
        """The expressions passed for one parameter of `fn` at its calls in the file."""
        found = []
        for call in ast.walk(self.m.tree):
            if not isinstance(call, ast.Call):
                continue
            callee = call.func.attr if isinstance(call.func, ast.Attribute) else \
                call.func.id if isinstance(call.func, ast.Name) else None
            if callee != fn.name:
                continue
            offset = 1 if isinstance(call.func, ast.Attribute) and fn.args.args \
                and fn.args.args[0].arg in ("self", "cls") else 0
            if position is not None and 0 <= position - offset < len(call.args):
                found.append(call.args[position - offset])
            found.extend(kw.value for kw in call.keywords if kw.arg == name)
        return found

    def _ext_names(self, call):
        for kw in call.keywords:
            if kw.arg == "functions":
                return self._strings(kw.value)
        if len(call.args) >= 4:
            return self._strings(call.args[3])
        # Without functions=, the sources bind their own names: m.def("name", ...).
        found = []
        for text in self._strings(call):
            if not _LIBRARY_BLOCK.search(text):
                found += re.findall(r"\.def\(\s*\"(\w+)\"", text)
        return found

    def _ext_ops(self, call):
        """"ns::op" for the operators a source registers in its own TORCH_LIBRARY namespace."""
        ops = []
        for text in self._strings(call):
            for block in _LIBRARY_BLOCK.finditer(text):
                ns, handle = block.group(1), block.group(2)
                body = text[block.end():]
                ops += [f"{ns}::{op}" for op in
                        re.findall(r"\b" + re.escape(handle) + r"\s*\.\s*def\(\s*\"(\w+)", body)]
        return ops

    def _model_class(self):
        """The class ModelNew names: defined as such, or `ModelNew = SomeClass`."""
        if "ModelNew" in self.classes:
            return "ModelNew"
        for v in self.modvars.get("ModelNew", []):
            if isinstance(v, ast.Name) and v.id in self.classes:
                return v.id
        return None

    def reachable(self):
        root = self._model_class()
        if root is None:
            return []
        funcs, classes, modvars, attrs = set(), set(), set(), set()
        wanted = set()        # attribute names used by reachable code
        # load_inline functions and operators built by reachable code or at import
        ext_available, ops_used = set(), set()
        for call in ast.walk(self.m.tree):
            if id(call) in self.import_time:
                ext_available.update(self._ext_names(call))
                ext_available.update(self._ext_ops(call))
        walked_defs = set()    # names of function definitions inside reachable code
        scanned = set()
        todo = []

        def visit(node):
            if id(node) not in scanned:
                scanned.add(id(node))
                todo.append(node)

        def reach_class(name):
            if name in classes:
                return
            classes.add(name)
            for b in self.classes[name].bases:
                if isinstance(b, ast.Name) and b.id in self.classes:
                    reach_class(b.id)

        reach_class(root)
        while True:
            for name in list(classes):
                for stmt in self.classes[name].body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if stmt.name in wanted or stmt.name in IMPLICIT_METHODS:
                            visit(stmt)
                    elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value:
                        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                        if any(isinstance(t, ast.Name) and (t.id in wanted or
                                                            t.id in IMPLICIT_METHODS)
                               for t in targets):
                            visit(stmt.value)
            for attr in wanted - attrs:
                attrs.add(attr)
                for v in self.attr_values.get(attr, []):
                    visit(v)
            if not todo:
                break
            while todo:
                for n in ast.walk(todo.pop()):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                        if n.id in self.funcs and n.id not in funcs:
                            funcs.add(n.id)
                            visit(self.funcs[n.id])
                        if n.id in self.classes:
                            reach_class(n.id)
                        if n.id in self.modvars and n.id not in modvars:
                            modvars.add(n.id)
                            for v in self.modvars[n.id]:
                                visit(v)
                    elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                        wanted.add(n.attr)
                        parts = (self.m.qualname(n) or "").split(".")
                        if len(parts) >= 4 and parts[:2] == ["torch", "ops"]:
                            ops_used.add(parts[2] + "::" + parts[3])
                    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        walked_defs.add(n.name)
                    elif isinstance(n, ast.Call):
                        if self.m._is_builtin(n.func, "getattr") and len(n.args) >= 2 \
                                and _is_str(n.args[1]):
                            wanted.add(n.args[1].value)
                        elif self.m.qualname(n.func) == LOAD_INLINE:
                            ext_available.update(self._ext_names(n))
                            ext_available.update(self._ext_ops(n))
        # walked_defs: kernels defined inside reachable code (nested, or jit methods of reached
        # classes, visited because their name was used).
        reached = {k for k in self.kernels if k in funcs or k in modvars or k in walked_defs}
        reached |= {n for n in self.ext_functions if n in ext_available and n in wanted}
        reached |= {op for op in self.ext_ops if op in ext_available and op in ops_used}
        return [n for n in self.defined() if n in reached]

    def defined(self):
        both = dict(self.ext_functions)
        for op, line in self.ext_ops.items():
            both.setdefault(op, line)
        for k, line in self.kernels.items():
            both.setdefault(k, line)
        return [n for n, _ in sorted(both.items(), key=lambda item: (item[1], item[0]))]


# Names through which a candidate builds and loads machine code of its own, or reaches any
# address of its process: it is then hostile below Python (docs/threat-model.md), and the worker
# places it apart from the expected values ("commit, then reveal"). numpy's array interface and
# as_strided view any address (the names are refused above, but a computed spelling escapes a
# list). ctypes and friends are policy violations, counted there.
NATIVE_PREFIXES = {
    "torch.utils.cpp_extension": "",
    "numpy": "its array interface views any address of the process",
}
# Names through which a candidate writes its own device kernels, whose pointers may be any
# integer: on a GPU that reads pageable host memory (HMM/ATS) they reach the worker's heap too,
# so the worker places them apart there (worker_entry.cpp, device_reach_reason).
DEVICE_CODE_PREFIXES = {"triton": ""}


def _uses(module, prefixes):
    """Every use (import or name) of prefixes: [{"line", "what"}], in source order."""
    uses = set()

    def matched(name):
        for p, why in prefixes.items():
            if name and (name == p or name.startswith(p + ".")):
                return f"{p}: {why}" if why else name
        return None

    for node in ast.walk(module.tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module + "." + a.name for a in node.names]
        elif isinstance(node, (ast.Name, ast.Attribute)):
            names = [module.qualname(node)]
        for name in names:
            what = matched(name)
            if what:
                uses.add((node.lineno, what))
    return [{"line": line, "what": what} for line, what in sorted(uses)]


# Any statement that can bind a module attribute named ModelNew spells the name (identifiers are
# NFKC-normalised by the parser, so a look-alike spelling is seen too), and a module-level
# __getattr__ (PEP 562) can answer for it. Only obfuscated names (getattr/setattr/globals with a
# computed string, exec) escape this test, and each of them is a policy violation: a file with
# any violation is left to its import (which may also exit or raise first, exit_on_import.py).
_MODEL_NEW_SPELLINGS = ("ModelNew", "__getattr__")


def _model_new_missing(tree):
    """True when no statement of the module can bind ModelNew: the import cannot define it."""
    for node in ast.walk(tree):
        for _, value in ast.iter_fields(node):
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, str) and any(s in v for s in _MODEL_NEW_SPELLINGS) for v in values):
                return False
    return True


def analyze(source):
    """The analysis of one candidate's source (bytes). Never runs it."""
    result = {"syntax_error": "", "violations": [], "defined_kernels": [],
              "reachable_kernels": [], "native_code": [], "device_code": [],
              "model_new_missing": False}
    try:
        text = importlib.util.decode_source(source)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError,
            MemoryError) as e:
        # Python's own compiler refuses the same file (too deep nesting included), so the
        # import reports it; not a finding of this analysis.
        where = f"line {e.lineno}: " if getattr(e, "lineno", None) else ""
        result["syntax_error"] = f"{where}{type(e).__name__}: {e}"
        return result
    try:
        module = _Module(tree, text)
        result["violations"] = _Policy(module).run()
        result["model_new_missing"] = not result["violations"] and _model_new_missing(tree)
        kernels = _Kernels(module)
        result["defined_kernels"] = kernels.defined()
        result["reachable_kernels"] = kernels.reachable()
        result["native_code"] = _uses(module, NATIVE_PREFIXES)
        result["device_code"] = _uses(module, DEVICE_CODE_PREFIXES)
    except RecursionError:
        # Fail closed: a file too deeply nested to analyse is not given the benefit of the doubt.
        result["violations"] = [{"check": CHECK, "line": 1,
                                 "evidence": "source too deeply nested to analyse"}]
    return result
