"""Native source policy: C++/CUDA text a candidate hands to torch.utils.cpp_extension.

Run first, in the same namespace as static_analysis.py (both embedded by lib/CMakeLists.txt),
which calls native_source_findings() on every string constant of the candidate. load_inline
source runs as host code inside the worker, so constructs that tamper with the process, the
interpreter or the timing are refused with their line. Defence in depth, not a proof: code
assembled at run time or by token pasting is unseen (docs/integrity-static.md, "Native source").
"""
import re

# Torch's own operator namespaces (and `_`, every namespace): registering into them overrides
# what the reference and the baselines run. A candidate's extension may add its own namespace.
TORCH_NAMESPACES = frozenset({
    "aten", "prim", "prims", "c10", "c10d", "cuda", "quantized", "quantization", "sparse",
    "profiler", "inductor", "export", "mkl", "mkldnn", "onednn", "prepacked", "torchvision",
    "debugprims", "rngprims", "static_runtime", "symm_mem", "triton", "higher_order",
})

# A call of a free function (also `::f(` and `std::f(`), not of a member (`x.clone(`,
# `Foo::write(`): put in front of the alternatives of a rule as "CALL:".
_CALL = r"(?<![\w.>:])(?:(?:std)?::)?\b"
# (pattern, what the evidence calls it, why). Patterns run on the text with C/C++ comments
# blanked out; `\b` keeps them from matching inside longer identifiers.
_RULES = [
    (r"#\s*include\s*[<\"](dlfcn\.h|link\.h)[>\"]", None, "dynamic loader interface: loads or finds native code by name"),
    (r"\bdl(open|mopen|sym|vsym|addr|info|iterate_phdr)\b", None, "dynamic loader: loads or finds native code by name"),
    (r"\b(_r_debug|link_map)\b", None, "walks the loaded objects"),
    (r"#\s*include\s*[<\"]sys/(mman|ptrace|syscall)\.h[>\"]", None, "process memory and system-call interface"),
    (r"CALL:(mprotect|pkey_mprotect|mmap|mmap64|mremap|munmap|madvise)\s*\(", None, "remaps or unprotects process memory"),
    (r"\b(asm|__asm__|__asm)\b", None, "inline assembly (can do any of the rest unseen)"),
    (r"\b(syscall|__NR_\w+)\b", None, "raw system call"),
    (r"\b(ptrace|process_vm_readv|process_vm_writev)\b", None, "reads or writes another process's memory"),
    (r"/proc/", None, "process internals through /proc"),
    (r"CALL:(fork|vfork|clone3?|posix_spawnp?|execl|execlp|execle|execv|execve|execvp|execvpe|fexecve|system|popen)\s*\(",
     None, "starts processes"),
    (r"\b(pthread_create|std::thread|std::jthread|std::async|thrd_create)\b", None,
     "background thread (work escapes the timed region)"),
    (r"CALL:(open|openat|creat|write|pwrite|dup|dup2|dup3)\s*\(", None,
     "raw file-descriptor access (the result channel, files)"),
    (r"\b(fopen|freopen|std::ofstream|std::ifstream|std::fstream)\b", None, "file access"),
    (r"CALL:(signal|sigaction)\s*\(", None, "signal handlers can interrupt or fake the harness"),
    (r"__attribute__\s*\(\(\s*(constructor|destructor|section)\b[^)]*\)*", None,
     "code run at load or exit, outside any call"),
    (r"\b(cudaStreamCreate\w*|cuStreamCreate\w*|getStreamFromPool|getStreamFromExternal|setCurrentCUDAStream)\b",
     None, "side stream (escapes event timing)"),
    (r"\b(cudaEventElapsedTime\w*|cuEventElapsedTime\w*)\b", None, "reads or fakes event timing"),
    (r"\b(c10::|torch::)?RegisterOperators\b|\bDispatcher::singleton\b|\.fallback\s*\(", None,
     "registers operators outside a TORCH_LIBRARY block of its own namespace"),
    (r"##", None, "token pasting builds identifiers this scan cannot see"),
]
_COMPILED = [(re.compile(p.replace("CALL:", _CALL)), what, why) for p, what, why in _RULES]
_LIBRARY = re.compile(r"\bTORCH_LIBRARY(_IMPL|_FRAGMENT)?\s*\(\s*(\w+)")


def _blank_comments(text):
    """`text` with C/C++ comments replaced by spaces (newlines kept, so offsets stay), string,
    character and raw string literals left as they are."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n", i) if c == "/" and text[i + 1] == "/" else text.find("*/", i + 2)
            end = n if end < 0 else (end if text[i + 1] == "/" else end + 2)
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
        elif c == "R" and text.startswith('R"', i):
            open_at = text.find("(", i + 2)
            if open_at < 0:
                return "".join(out)
            delim = text[i + 2:open_at]
            close = text.find(")" + delim + '"', open_at)
            i = n if close < 0 else close + len(delim) + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return "".join(out)


def native_source_findings(text):
    """[(offset, what, why)] for C++/CUDA constructs this policy refuses in `text`."""
    if len(text) < 4:
        return []
    scan = _blank_comments(text)
    found = []
    for rx, what, why in _COMPILED:
        for m in rx.finditer(scan):
            found.append((m.start(), what or " ".join(m.group(0).split()).rstrip("( "),
                          f"{why}, in C++/CUDA source"))
    for m in _LIBRARY.finditer(scan):
        ns = m.group(2)
        if ns in TORCH_NAMESPACES or ns.startswith("_"):
            found.append((m.start(), f"TORCH_LIBRARY{m.group(1) or ''}({ns}, ...)",
                          "registers into a torch namespace (overrides the reference's and the "
                          "baselines' operators), in C++/CUDA source"))
    return found
