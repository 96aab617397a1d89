# kbench: builds of `torch.utils.cpp_extension.load_inline` extensions (docs/extensions.md).
# Embedded in the worker (extension_builds_source.hpp.in) and run in a private namespace.
#
# Before the candidate is imported (trusted: nothing of the candidate has run) the worker
#   1. extracts the candidate's load_inline(...) calls from its source (ast, literals and
#      module-level string constants only; nothing is evaluated),
#   2. builds each one with torch's own ninja step into its job dir, WITHOUT loading it, and
#      announces `built <key> <name> <sha256>` on the result channel; the controller later
#      copies that file into the shared cache only if its hash still matches,
#   3. replaces load_inline with `kbench_load_inline`, which computes the same key from the
#      actual arguments and loads a hash-verified copy of the cached (or prebuilt) module; on a
#      miss it builds privately in the job dir, as torch would.
# The shared cache is read-only to the worker (Landlock): nothing here ever writes into it.
import ast
import hashlib
import importlib.util
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time

BUILD_RULE_VERSION = 1  # bump when anything below changes what a key's binary is
MAX_CALLS = 8  # load_inline calls prebuilt per candidate (dead code costs build time)
MAX_SOURCE_CHARS = 4 << 20  # a statically evaluated string or list, in total
BUILD_NICE = 10  # added to a prebuild's nice value (niced)
KEY_RE = re.compile(r"^[0-9a-f]{64}$")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")

# Flags that only tune code generation. Anything else (plugins, wrappers, -B, -o, -Wl, include
# or library paths, option files) could read or run files that the key does not cover, so a
# call that uses one is built privately and never shared.
_SAFE_FLAGS = [re.compile(p) for p in (
    r"",  # KernelBench's own examples pass extra_cflags=[""], extra_ldflags=[""]
    r"-O[0-3s]?", r"-Ofast", r"-g[0-3]?", r"-DNDEBUG", r"-D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?",
    r"-U[A-Za-z_][A-Za-z0-9_]*", r"--?std=[a-z0-9+]+", r"-f(?!plugin|profile|auto-profile|dump)[a-z0-9][a-z0-9-]*",
    r"-W(no-)?[a-z0-9][a-z0-9-]*", r"-w", r"-m(arch|tune|cpu)=[a-z0-9_-]+", r"-m(no-)?[a-z0-9][a-z0-9.-]*",
    r"-pthread", r"-fopenmp", r"-lineinfo", r"-res-usage", r"--?use_fast_math",
    r"--(expt-relaxed-constexpr|expt-extended-lambda|extended-lambda|restrict|resource-usage|generate-line-info)",
    r"--(ftz|prec-div|prec-sqrt|fmad)=(true|false)", r"--?maxrregcount=[0-9]+", r"--default-stream=(per-thread|legacy)",
    r"-arch=(sm|compute)_[0-9]+[af]?", r"-code=(sm|compute)_[0-9]+[af]?",
    r"-gencode=arch=compute_[0-9]+[af]?,code=(sm|compute)_[0-9]+[af]?",
    r"-Xptxas=(-v|-O[0-3]|--?warn-spills|--?allow-expensive-optimizations=(true|false))(,(-v|-O[0-3]))*",
    r"--ptxas-options=(-v|-O[0-3])(,(-v|-O[0-3]))*", r"-l[A-Za-z0-9_]+",
)]
_INCLUDE_RE = re.compile(r"^\s*#\s*(include|include_next|import|embed)\b(.*)$")
_SAFE_INCLUDE_RE = re.compile(r'^\s*(<[A-Za-z0-9_+-][A-Za-z0-9_./+-]*>|"[A-Za-z0-9_+-][A-Za-z0-9_./+-]*")\s*(//.*)?$')


def niced(work):
    """work() on a thread at BUILD_NICE more than its caller's nice value. On Linux a nice value
    is a thread's own and what it forks inherits it, so the compilers a build starts yield the
    CPUs to the timed work of other jobs on the host (their samples, and the timing witness's
    window, which on CUDA gets no credit for the host's wait: docs/threat-model.md), while the
    worker's own thread keeps its priority for its timing later."""
    outcome = {}

    def run():
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + BUILD_NICE))
        except OSError:
            pass  # a sandbox that refuses it: the build runs at the caller's priority
        try:
            outcome["value"] = work()
        except BaseException as e:  # re-raised on the caller's thread
            outcome["error"] = e

    thread = threading.Thread(target=run, name="kbench-extension-build")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


class NotShareable(Exception):
    """The call is built privately and never shared; the message says why."""


class _NotStatic(Exception):
    pass


# --- static extraction ------------------------------------------------------------------

def _stored_names(tree):
    counts = {}
    def bump(name):
        counts[name] = counts.get(name, 0) + 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bump(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bump(node.name)
        elif isinstance(node, ast.alias):
            bump((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bump(name)
                bump(name)
    return counts


def _module_constants(tree):
    counts = _stored_names(tree)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            name = node.target.id
        else:
            continue
        if counts.get(name) == 1:
            consts[name] = node.value
    return consts


class _Evaluator:
    def __init__(self, consts):
        self.consts = consts
        self.chars = 0

    def size(self, value):
        if isinstance(value, str):
            self.chars += len(value)
        elif isinstance(value, (list, tuple)):
            self.chars += len(value)
        if self.chars > MAX_SOURCE_CHARS:
            raise _NotStatic("sources larger than the static limit")
        return value

    def value(self, node, depth=0):
        if depth > 40:
            raise _NotStatic("constants nested too deeply")
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool, int, float, type(None))):
            return self.size(node.value)
        if isinstance(node, (ast.List, ast.Tuple)):
            return self.size([self.value(e, depth + 1) for e in node.elts])
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {self.value(k, depth + 1): self.value(v, depth + 1) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.value(self.consts[node.id], depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            if type(left) is type(right) and isinstance(left, (str, list)):
                return self.size(left + right)
        if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
            return self.size("".join(v.value for v in node.values))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
                and len(node.args) == 1 and not node.keywords):
            parts = self.value(node.args[0], depth + 1)
            if isinstance(parts, list) and all(isinstance(p, str) for p in parts):
                return self.size(node.func.value.value.join(parts))
        raise _NotStatic(f"line {getattr(node, 'lineno', '?')}: {type(node).__name__} is not a literal")


def _load_inline_names(tree):
    names = {"load_inline"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "load_inline" and alias.asname:
                    names.add(alias.asname)
    return names


def extract_calls(source, parameters):
    """[(line, {param: value} or None, why)] for each load_inline call in `source`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = _load_inline_names(tree)
    evaluator = _Evaluator(_module_constants(tree))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if not ((isinstance(func, ast.Name) and func.id in names) or
                (isinstance(func, ast.Attribute) and func.attr == "load_inline")):
            continue
        try:
            if len(node.args) > len(parameters) or any(isinstance(a, ast.Starred) for a in node.args):
                raise _NotStatic("positional arguments not literal")
            args = {parameters[i]: evaluator.value(a) for i, a in enumerate(node.args)}
            for kw in node.keywords:
                if kw.arg is None or kw.arg not in parameters:
                    raise _NotStatic("**kwargs or an unknown keyword")
                args[kw.arg] = evaluator.value(kw.value)
            found.append((node.lineno, args, ""))
        except _NotStatic as e:
            found.append((node.lineno, None, str(e) or "arguments are not literals"))
        if len(found) >= MAX_CALLS:
            break
    return found


# --- what decides the binary --------------------------------------------------------------

def _strings(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise NotShareable(f"{what} is not a string or a list of strings")


def generated_sources(a):
    """main.cpp and cuda.cu exactly as torch's load_inline writes them."""
    cpp = _strings(a["cpp_sources"], "cpp_sources")
    cuda = _strings(a.get("cuda_sources"), "cuda_sources")
    if not a.get("no_implicit_headers"):
        cpp.insert(0, "#include <torch/extension.h>")
    functions = a.get("functions")
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        if isinstance(functions, (list, tuple)):
            functions = {f: f for f in functions}
        if not isinstance(functions, dict):
            raise NotShareable("functions is not a list or dict")
        module_def = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
        for fname, doc in functions.items():
            if a.get("with_pytorch_error_handling", True):
                module_def.append(f'm.def("{fname}", torch::wrap_pybind_function({fname}), "{doc}");')
            else:
                module_def.append(f'm.def("{fname}", {fname}, "{doc}");')
        module_def.append("}")
        cpp += module_def
    sources = {"main.cpp": "\n".join(cpp)}
    if cuda:
        if not a.get("no_implicit_headers"):
            cuda = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"] + cuda
        sources["cuda.cu"] = "\n".join(cuda)
    return sources


def _check_shareable(a, sources):
    if not isinstance(a.get("name"), str) or not NAME_RE.match(a["name"]):
        raise NotShareable("the module name is not an identifier")
    for what in ("sycl_sources", "extra_include_paths", "extra_sycl_cflags"):
        if a.get(what):
            raise NotShareable(f"{what} is set")
    if a.get("use_pch") or a.get("is_python_module", True) is not True or a.get("with_sycl"):
        raise NotShareable("use_pch, with_sycl or is_python_module=False")
    for what in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags"):
        for flag in _strings(a.get(what), what):
            if not any(p.fullmatch(flag) for p in _SAFE_FLAGS):
                raise NotShareable(f"{what} holds {flag[:60]!r}, which is not on the shareable list")
    for file, text in sources.items():
        if ".incbin" in text:
            raise NotShareable(f"{file} uses .incbin")
        for line in text.splitlines():
            m = _INCLUDE_RE.match(line)
            if m and (not _SAFE_INCLUDE_RE.match(m.group(2)) or ".." in m.group(2)):
                raise NotShareable(f"{file}: `{line.strip()[:80]}` (only relative includes without ..)")


def _first_line(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable: {e}"


def toolchain(cpp_extension, torch, arch_list):
    """Everything outside the arguments that decides the binary; computed before the import."""
    cxx = cpp_extension.get_cxx_compiler()
    nvcc = os.path.join(cpp_extension.CUDA_HOME, "bin", "nvcc") if cpp_extension.CUDA_HOME else ""
    return {
        "rule": BUILD_RULE_VERSION,
        "cxx": [os.path.realpath(shutil.which(cxx) or cxx), _first_line([cxx, "--version"])],
        "nvcc": [nvcc, _first_line([nvcc, "--version"])] if nvcc and os.path.exists(nvcc) else None,
        "torch": [torch.__version__, str(torch.version.cuda), str(getattr(torch.version, "git_version", ""))],
        "python": [sys.implementation.cache_tag, platform.machine(), sys.platform],
        "arch": arch_list,
    }


def spec_of(a, tools):
    """(key, name, sources, with_cuda, normalised args) of one call; NotShareable if never shared."""
    sources = generated_sources(a)
    _check_shareable(a, sources)
    with_cuda = a.get("with_cuda")
    if with_cuda is None:
        with_cuda = "cuda.cu" in sources
    flags = {w: _strings(a.get(w), w) for w in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags")}
    material = {"name": a["name"], "sources": sources, "with_cuda": bool(with_cuda), "flags": flags,
                "toolchain": {k: v for k, v in tools.items() if k not in ("nvcc", "arch")},
                "cuda_toolchain": [tools["nvcc"], tools["arch"]] if with_cuda else None}
    key = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    return key, a["name"], sources, bool(with_cuda), flags


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# --- the worker's side --------------------------------------------------------------------

class Builds:
    def __init__(self, torch, own_dir, cache_dir, cache_off_reason, announce):
        import torch.utils.cpp_extension as cpp_extension
        self.torch, self.ce = torch, cpp_extension
        self.original = cpp_extension.load_inline
        self.parameters = list(inspect.signature(self.original).parameters)
        self.defaults = {n: p.default for n, p in inspect.signature(self.original).parameters.items()
                         if p.default is not inspect.Parameter.empty}
        self.own = own_dir  # <job dir>/torch_extensions-kbench (cache/extension_cache.hpp)
        self.cache = cache_dir
        self.cache_off_reason = cache_off_reason
        self.announce = announce
        self.prebuilt = {}  # key -> (path, sha256)
        self.failed = {}  # key -> the build's exception
        self.loaded = {}  # key -> module: a repeated call (e.g. in ModelNew.__init__) loads nothing new
        self.records = []
        self.tools = toolchain(cpp_extension, torch, os.environ.get("TORCH_CUDA_ARCH_LIST", "none"))

    def _args(self, args, kwargs):
        a = dict(self.defaults)
        a.update(zip(self.parameters, args))
        a.update(kwargs)
        return a

    def _cached(self, key, name):
        """Path of a verified private copy of the cache's artefact, or None (and why)."""
        if not self.cache:
            return None, self.cache_off_reason
        entry = os.path.join(self.cache, key)
        try:
            with open(os.path.join(entry, "manifest.json")) as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            return None, "not in the cache"
        if manifest.get("key") != key or manifest.get("name") != name or manifest.get("file") != name + ".so":
            return None, "the cache entry's manifest does not describe this key"
        target_dir = os.path.join(self.own, "from-cache", key)
        os.makedirs(target_dir, exist_ok=True)
        target = os.path.join(target_dir, name + ".so")
        # Written beside and renamed over: a copy already loaded keeps its own (mapped) file.
        partial = f"{target}.{os.getpid()}.{len(self.records)}.partial"
        h = hashlib.sha256()
        try:
            fd = os.open(os.path.join(entry, name + ".so"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as src, open(partial, "wb") as dst:
                for block in iter(lambda: src.read(1 << 20), b""):
                    h.update(block)
                    dst.write(block)
        except OSError as e:
            return None, f"the cache artefact is unreadable ({e.strerror})"
        if h.hexdigest() != manifest.get("sha256"):
            os.unlink(partial)
            return None, "the cache artefact does not match its manifest's sha256; not loaded"
        os.replace(partial, target)
        return target, "hit"

    def _import(self, name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def _build(self, key, name, sources, with_cuda, flags):
        """Builds into <own dir>/<key>/ without loading; returns (.so path, seconds)."""
        tmp = os.path.join(self.own, ".tmp-" + key)
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        paths = []
        for file, text in sources.items():
            paths.append(os.path.join(tmp, file))
            with open(paths[-1], "w") as f:
                f.write(text)
        start = time.monotonic()
        niced(lambda: self.ce._write_ninja_file_and_build_library(
            name=name, sources=paths, extra_cflags=flags["extra_cflags"],
            extra_cuda_cflags=flags["extra_cuda_cflags"], extra_sycl_cflags=[],
            extra_ldflags=flags["extra_ldflags"], extra_include_paths=[], build_directory=tmp,
            verbose=False, with_cuda=with_cuda, with_sycl=False))
        seconds = time.monotonic() - start
        final = os.path.join(self.own, key)
        shutil.rmtree(final, ignore_errors=True)
        os.rename(tmp, final)
        return os.path.join(final, name + ".so"), seconds

    def prebuild(self, source):
        """Before the import: build every statically known call that the cache lacks."""
        for line, a, why in extract_calls(source, self.parameters):
            record = {"line": line, "phase": "prebuild"}
            self.records.append(record)
            if a is None:
                record["skipped"] = "not static: " + why
                continue
            a = dict(self.defaults, **a)
            try:
                key, name, sources, with_cuda, flags = spec_of(a, self.tools)
            except NotShareable as e:
                record["skipped"] = "not shareable: " + str(e)
                continue
            except Exception as e:  # e.g. no cpp_sources: torch's own load_inline says what is wrong
                record["skipped"] = f"unusual arguments ({type(e).__name__})"
                continue
            record.update(key=key, name=name)
            if key in self.prebuilt or key in self.failed:
                record["duplicate"] = True
                continue
            path, why = self._cached(key, name)
            if path:
                record["cached"] = True
                continue
            if why != "not in the cache":
                record["cache"] = why
            self.announce("build")
            try:
                path, seconds = self._build(key, name, sources, with_cuda, flags)
            except Exception as e:  # the candidate's own compile error, raised again at its call
                self.failed[key] = e
                record["error"] = str(e)[:2000]
                continue
            finally:
                self.announce("build-end")
            digest = sha256_file(path)
            self.prebuilt[key] = (path, digest)
            record.update(build_s=seconds, sha256=digest)
            self.announce(f"built {key} {name} {digest}")

    def load_inline(self, *args, **kwargs):
        """Installed as torch.utils.cpp_extension.load_inline while the candidate runs."""
        a = self._args(args, kwargs)
        record = {"name": str(a.get("name"))[:100], "phase": "import"}
        self.records.append(record)
        try:
            key, name, _, _, _ = spec_of(a, self.tools)
        except NotShareable as e:
            record.update(hit=False, reason="not shareable: " + str(e))
            return self._private(record, args, kwargs)
        except Exception as e:  # torch's own load_inline raises the error the candidate expects
            record.update(hit=False, reason=f"unusual arguments ({type(e).__name__})")
            return self._private(record, args, kwargs)
        record["key"] = key
        if key in self.loaded:
            record.update(hit=True, source="loaded", build_s=0.0)
            return self.loaded[key]
        if key in self.failed:
            record.update(hit=False, reason="the prebuild failed")
            raise self.failed[key]
        path, why = self._cached(key, name)
        if path:
            record.update(hit=True, source="cache", build_s=0.0)
            self.loaded[key] = self._import(name, path)
            return self.loaded[key]
        if key in self.prebuilt:
            path, digest = self.prebuilt[key]
            if sha256_file(path) == digest:
                record.update(hit=False, source="prebuilt", build_s=next(
                    (r["build_s"] for r in self.records if r.get("key") == key and "build_s" in r), None))
                self.loaded[key] = self._import(name, path)
                return self.loaded[key]
        record.update(hit=False, reason=why)
        return self._private(record, args, kwargs)

    def _private(self, record, args, kwargs):
        record["source"] = "private"
        self.announce("build")
        start = time.monotonic()
        try:
            return self.original(*args, **kwargs)
        finally:
            record["build_s"] = time.monotonic() - start
            self.announce("build-end")

    def report(self):
        return json.dumps(self.records, default=str)


def install(torch, device, build_jobs, own_dir, cache_dir, cache_off_reason, announce, candidate_source):
    """Arch and parallelism for every build of this job, the prebuilds, then the replacement."""
    import functools
    import torch.utils.cpp_extension as cpp_extension
    if torch.device(device).type == "cuda":  # the job's device, parsed by torch
        # The job's own GPU, read through torch: one architecture instead of torch's list.
        major, minor = torch.cuda.get_device_capability(torch.device(device))
        os.environ["TORCH_CUDA_ARCH_LIST"] = f"{major}.{minor}"
    os.environ["MAX_JOBS"] = str(max(1, int(build_jobs)))
    if b"load_inline" not in candidate_source:
        # Nothing to prebuild, and no compiler identities to ask for (harness overhead): a call
        # reached some other way builds privately through torch's own load_inline.
        return None
    builds = Builds(torch, own_dir, cache_dir, cache_off_reason, announce)
    builds.prebuild(candidate_source)

    def load_inline(*args, **kwargs):
        return builds.load_inline(*args, **kwargs)

    functools.update_wrapper(load_inline, builds.original)
    cpp_extension.load_inline = load_inline
    return builds
