// Static analysis of candidate sources (lib/integrity/static_analysis): no finding on any honest
// candidate shipped with the project, the exact finding and line on every hostile source in
// tests/hostile/static/, and kernel reachability from ModelNew.forward.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "worker/python_runtime.hpp"
#include "integrity/static_analysis.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

StaticAnalysis analyze(const fs::path& file) {
  static const bool started = (start_python(), true);  // one interpreter per test process
  (void)started;
  return analyze_candidate_source(file.is_absolute() ? file : test::kSourceDir / file);
}

std::vector<fs::path> python_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(test::kSourceDir / folder))
    if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string describe(const StaticAnalysis& a) {
  std::string text;
  for (const auto& v : a.violations) text += std::to_string(v.line) + ": " + v.evidence + "\n";
  return text;
}

// A hostile file after which an honest one must still come out clean.
void check_honest_still_clean() {
  const auto a = analyze("benchmarks/solutions/smoke/04_layernorm_triton.py");
  CHECK(a.violations.empty());
  CHECK(a.reachable_kernels == std::vector<std::string>{"_layernorm_kernel"});
}

struct Expected {
  int line;
  std::string evidence;  // a part of the finding's evidence
};

}  // namespace

TEST_CASE("every shipped Triton solution passes the policy and reaches all its kernels") {
  const auto files = python_files("benchmarks/solutions");
  REQUIRE(files.size() >= 25);  // smoke and level1, the candidates of configs/suites/
  for (const auto& file : files) {
    INFO(file.string());
    const auto a = analyze(file);
    CHECK(a.syntax_error.empty());
    CHECK(a.violations.empty());
    INFO(describe(a));
    CHECK(!a.defined_kernels.empty());
    CHECK(a.reachable_kernels == a.defined_kernels);
  }
}

TEST_CASE("the plain-PyTorch test candidates pass the policy and define no kernel") {
  for (const auto& file : python_files("tests/data/candidates")) {
    INFO(file.string());
    const auto a = analyze(file);
    CHECK(a.violations.empty());
    INFO(describe(a));
    CHECK(a.defined_kernels.empty());
    CHECK(a.reachable_kernels.empty());
  }
}

TEST_CASE("honest patterns: autotune stacks, jit(f), device functions, autograd.Function") {
  const auto a = analyze("tests/data/static/honest_patterns.py");
  INFO(describe(a));
  CHECK(a.violations.empty());
  const std::vector<std::string> kernels{"_square", "_rms_kernel", "_scale_kernel"};
  CHECK(a.defined_kernels == kernels);
  CHECK(a.reachable_kernels == kernels);
}

TEST_CASE("honest KernelBench-style load_inline candidate: no finding, its function reachable") {
  const auto a = analyze("tests/data/static/honest_load_inline.py");
  INFO(describe(a));
  CHECK(a.violations.empty());
  CHECK(a.defined_kernels == std::vector<std::string>{"axpy_cuda"});
  CHECK(a.reachable_kernels == std::vector<std::string>{"axpy_cuda"});
}

TEST_CASE("honest native sources: headers, cuBLAS from ATen, AT_DISPATCH, shared memory, atomics, own ops") {
  const auto a = analyze("tests/data/static/honest_native_sources.py");
  INFO(describe(a));
  CHECK(a.violations.empty());
  const std::vector<std::string> kernels{"gemm_bias_cuda", "kbhonest::half_scale", "row_sum_cuda"};
  CHECK(a.defined_kernels == kernels);
  CHECK(a.reachable_kernels == kernels);
}

TEST_CASE("reachability patterns of LLM-written load_inline candidates: each file's kernels reachable") {
  struct Case {
    std::string file;
    std::vector<std::string> reachable;  // == defined: every kernel of these files is used
  };
  const std::vector<Case> cases{
      {"module_handle.py", {"relu_scale_cuda"}},                            // fused = load_inline(...)
      {"attr_handle_and_sequential.py", {"add_bias_cuda", "gelu_cuda"}},   // self.op, Sequential, inheritance
      {"module_list_blocks.py", {"fused_conv_relu_cuda", "residual_add_cuda"}},  // ModuleList loop, self.ext
      {"two_modules.py", {"scale_cuda", "softmax_rows_cuda"}},  // names through a builder's parameters, tuple
      {"launch_loop_and_ops.py", {"kbreach::cumulative_scale"}},  // TORCH_LIBRARY op, C++ launch loop
  };
  REQUIRE(python_files("tests/data/static/reach").size() == cases.size());
  for (const auto& c : cases) {
    INFO(c.file);
    const auto a = analyze(fs::path("tests/data/static/reach") / c.file);
    INFO(describe(a));
    CHECK(a.violations.empty());
    CHECK(a.defined_kernels == c.reachable);
    CHECK(a.reachable_kernels == c.reachable);
  }
}

TEST_CASE("the GPU suite's CUDA candidates (tests/data/cuda, hostile/cuda) pass statically, all kernels reachable") {
  auto files = python_files("tests/data/cuda");
  REQUIRE(files.size() == 8);
  for (const auto& f : python_files("tests/hostile/cuda")) files.push_back(f);  // caught only on the GPU
  for (const auto& file : python_files("tests/data/extension")) files.push_back(file);
  for (const auto& file : files) {
    INFO(file.string());
    const auto a = analyze(file);
    INFO(describe(a));
    CHECK(a.violations.empty());
    CHECK(!a.defined_kernels.empty());
    CHECK(a.reachable_kernels == a.defined_kernels);
  }
}

TEST_CASE("kernels in helper blocks forward never uses, or called only in __init__, are unreachable") {
  const auto a = analyze("tests/hostile/static/module_list_unused.py");
  INFO(describe(a));
  CHECK(a.violations.empty());
  CHECK(a.defined_kernels == std::vector<std::string>{"relu_cuda", "warm"});
  CHECK(a.reachable_kernels.empty());
}

TEST_CASE("hostile sources: each violation with its line") {
  struct Case {
    std::string file;
    std::vector<Expected> findings;  // all of them, in line order
  };
  const std::vector<Case> cases{
      {"gc_expected_outputs.py", {{5, "import gc: 'gc' is not an allowed import"}}},
      {"ctypes_memory.py",
       {{3, "import ctypes: 'ctypes' is not an allowed import"}, {10, ".ctypes: raw memory access"}}},
      {"os_shm_cache.py", {{3, "import os: 'os' is not an allowed import"}, {12, "open: file access"}}},
      {"obfuscated_getattr.py", {{14, "getattr() with a computed name"}}},
      {"dunder_import.py", {{7, "__import__: imports modules by computed name"}}},
      {"monkeypatch_sync.py", {{6, "assignment to torch.cuda.synchronize: monkeypatches"}}},
      {"monkeypatch_alias.py",
       {{13, "assignment to torch.cuda.Event.elapsed_time: monkeypatches"},
        {14, "setattr(torch.cuda, 'synchronize'): monkeypatches"}}},
      {"frame_walk.py",
       {{3, "import sys: 'sys' is not an allowed import"},
        {11, ".f_locals: reads a frame's locals"},
        {12, ".f_locals: reads a frame's locals"},
        {13, ".f_back: walks the caller's frames"}}},
      {"tf32_switch.py",
       {{9, "assignment to torch.backends.cuda.matmul.allow_tf32: monkeypatches"},
        {10, "torch.set_float32_matmul_precision: changes fp32 matmul precision (TF32)"}}},
      {"lazy_tensor_subclass.py",
       {{8, "class LazyOut(torch.Tensor): a tensor subclass"},
        {15, "assignment to .__class__: rewrites a special attribute"}}},
      {"background_thread.py",
       {{3, "import threading: 'threading' is not an allowed import"},
        {4, "import concurrent.futures: 'concurrent' is not an allowed import"}}},
      {"side_stream_load_inline.py", {{11, "cudaStreamCreate: side stream (escapes event timing), in C++/CUDA"}}},
      // The native source policy (lib/integrity/native_source_policy.py): each construct, its line.
      {"native_dlsym_timer.py",
       {{9, "#include <dlfcn.h>: dynamic loader interface"},
        {11, "cudaEventElapsedTime: reads or fakes event timing, in C++/CUDA source"},
        {11, "dlsym: dynamic loader"}}},
      {"native_process_tamper.py",
       {{10, "#include <sys/mman.h>: process memory"},
        {14, "__attribute__((constructor)): code run at load or exit"},
        {15, "mprotect: remaps or unprotects process memory"},
        {16, "::write: raw file-descriptor access"},
        {17, "dup2: raw file-descriptor access"},
        {20, "std::thread: background thread"}}},
      {"native_syscall_proc.py",
       {{10, "syscall: raw system call"},
        {11, "__asm__: inline assembly"},
        {12, "dlopen: dynamic loader"},  // after a "//" inside a string literal: not a comment
        {13, "/proc/: process internals"},
        {14, "execv: starts processes"},
        {14, "fork: starts processes"}}},
      {"native_aten_override.py",
       {{12, "TORCH_LIBRARY_IMPL(aten, ...): registers into a torch namespace"},
        {13, "cudaEventElapsedTime: reads or fakes event timing"}}},
      {"shadowed_getattr.py", {{15, "getattr() with a computed name"}}},
      {"reexported_torch.py",
       {{14, "torch.set_num_threads: changes the baselines' CPU threads"},
        {16, "torch.set_num_threads: changes the baselines' CPU threads"}}},
      {"typing_eval_gadgets.py",
       {{10, "import torch.utils.benchmark: runs code given as strings"},
        {13, "string annotation 'lambda n: __import__(n)': code in an annotation"},
        {17, "typing.get_type_hints: evaluates string annotations as code"},
        {18, "torch.utils.benchmark.Timer: torch.utils.benchmark: runs code given as strings"},
        {26, "__torch_function__ = ...: intercepts torch calls"}}},
      {"numpy_raw_memory.py",
       {{6, "from numpy.lib.stride_tricks import as_strided: views memory outside the array"},
        {11, "__array_interface__: an array over any address of the process"},
        {13, "def __cuda_array_interface__: an array over any address"},
        {17, "'__array_interface__': an array over any address"},
        {21, "numpy.loadtxt: reads files"},
        {29, ".tofile: writes files"},
        {30, "torch.UntypedStorage.from_file: reads or maps files"},
        {34, "torch.UntypedStorage._new_with_weak_ptr: builds a storage over a raw address"}}},
      {"numpy_via_torch.py", {{14, "numpy.lib.stride_tricks.as_strided: views memory outside the array"}}},
      {"triton_build_module.py",
       {{7, "from triton.runtime.build import compile_module_from_src: compiles C source and loads it"},
        {7, "import triton.runtime.build: compiles C source and loads it"},
        {13, "triton.backends.nvidia.driver.compile_module_from_src: compiles C source and loads it"},
        {22, "torch.compiler.compile: torch.compiler: TorchDynamo/Inductor"}}},
      {"torchscript_thread_pool.py",
       {{7, "from torch.jit import fork: torch.jit: TorchScript: runs Python on torch's thread pool"},
        {7, "import torch.jit: TorchScript"},
        {10, "torch.jit.ignore: torch.jit"},
        {15, "torch.jit.CompilationUnit: torch.jit"},
        {16, "torch.jit.load: torch.jit"},
        {22, "torch.distributed.is_available: torch.distributed: other processes and threads"}}},
      {"builtins_via_self.py",
       {{7, ".__self__: a builtin function's __self__ is the builtins module"},
        {8, "type(..., (torch.Tensor, ...), ...): a tensor subclass"}}},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const auto a = analyze(fs::path("tests/hostile/static") / c.file);
    INFO(describe(a));
    REQUIRE(a.violations.size() == c.findings.size());
    for (std::size_t i = 0; i < c.findings.size(); ++i) {
      CHECK(a.violations[i].check == "forbidden_api");
      CHECK(a.violations[i].line == c.findings[i].line);
      CHECK(a.violations[i].evidence.find(c.findings[i].evidence) != std::string::npos);
    }
    check_honest_still_clean();
  }
}

TEST_CASE("placed apart: native code, numpy anywhere, Triton where its pointers are host addresses (CPU, HMM GPUs)") {
  // numpy's array interface views any address: placed apart even when every name it uses is
  // allowed (a computed spelling of the interface escapes the policy's list).
  const auto numpy_only = analyze("tests/hostile/exploits/profiler_global.py");
  REQUIRE(numpy_only.violations.empty());
  CHECK(native_code_reason(numpy_only) == "line 5: numpy: its array interface views any address of the process");
  // numpy through torch's own modules is numpy (torch.nn.functional.np).
  CHECK(native_code_reason(analyze("tests/hostile/static/numpy_via_torch.py")) ==
        "line 6: numpy: its array interface views any address of the process");
  const auto cpp = analyze("tests/data/static/honest_load_inline.py");
  CHECK(native_code_reason(cpp).find("torch.utils.cpp_extension") != std::string::npos);
  // A Triton candidate stays in one process only where its pointers are device addresses.
  const auto triton = analyze("benchmarks/solutions/smoke/04_layernorm_triton.py");
  CHECK(native_code_reason(triton).empty());
  REQUIRE(!triton.device_code.empty());
  CHECK(device_reach_reason(triton, "").empty());
  const std::string hmm = device_reach_reason(triton, kPageableMemoryGpu);
  CHECK(hmm.find("line " + std::to_string(triton.device_code.front().line) + ": triton kernels run on a GPU") == 0);
  CHECK(hmm.find("pageable host memory (HMM/ATS)") != std::string::npos);
  CHECK(device_reach_reason(triton, kInterpretedOnHost).find("triton kernels run interpreted on the CPU") !=
        std::string::npos);
  // Plain PyTorch reaches no address on any device.
  const auto plain = analyze("tests/hostile/exploits/honest_torch.py");
  CHECK(native_code_reason(plain).empty());
  CHECK(device_reach_reason(plain, kPageableMemoryGpu).empty());
  CHECK(device_reach_reason(plain, kInterpretedOnHost).empty());
}

TEST_CASE("the runtime hostile candidates that reach the OS are caught before import") {
  const auto segfault = analyze("tests/hostile/segfault.py");
  REQUIRE(segfault.violations.size() == 1);
  CHECK(segfault.violations[0].evidence.find("import ctypes") == 0);
  const auto side_stream = analyze("tests/hostile/side_stream_matmul.py");
  REQUIRE(side_stream.violations.size() == 2);
  CHECK(side_stream.violations[0].line == 17);
  CHECK(side_stream.violations[0].evidence.find("torch.cuda.Stream: side stream") == 0);
  CHECK(side_stream.violations[1].line == 20);
  CHECK(side_stream.violations[1].evidence.find("torch.cuda.stream: side stream") == 0);
}

TEST_CASE("Python on torch's inter-op pool (TorchScript) is refused before it runs") {
  // interop_gil_spinner.py was paid 8x under strict on the CPU: its thread is invisible to the
  // background_thread check (a native pool thread); at run time only the baseline it slows shows
  // it (the CPU bound, test_baseline_cross_check), so the policy refuses torch.jit up front.
  const auto spinner = analyze("tests/hostile/exploits/interop_gil_spinner.py");
  REQUIRE(spinner.violations.size() == 5);
  CHECK(spinner.violations[0].line == 20);
  CHECK(spinner.violations[0].evidence.find("torch.jit.ignore: torch.jit: TorchScript") == 0);
  CHECK(spinner.violations[4].evidence.find("torch.jit.fork: torch.jit") == 0);
}

TEST_CASE("DataLoader workers (other processes running the candidate's code) are refused before they run") {
  // dataloader_worker_spinner.py forks worker processes at import that burn the CPU beside the
  // baselines' calls; at run time the child_process check sees them (test_integrity_exploits).
  const auto spinner = analyze("tests/hostile/exploits/dataloader_worker_spinner.py");
  REQUIRE(spinner.violations.size() == 3);
  CHECK(spinner.violations[0].line == 14);
  CHECK(spinner.violations[0].evidence.find("from torch.utils.data import DataLoader: its workers are other processes") == 0);
  CHECK(spinner.violations[1].evidence.find("from torch.utils.data import dataloader:") == 0);
  CHECK(spinner.violations[2].evidence.find("torch.utils.data.dataloader.queue.Queue:") == 0);
  // A Dataset alone runs nothing elsewhere: allowed.
  test::TempDir dir;
  std::ofstream(dir.path() / "dataset.py") << "from torch.utils.data import Dataset, TensorDataset\n";
  CHECK(analyze(dir.path() / "dataset.py").violations.empty());
}

TEST_CASE("a decoy kernel that forward never reaches does not count") {
  const auto a = analyze("tests/hostile/static/decoy_kernel.py");
  CHECK(a.violations.empty());
  CHECK(a.defined_kernels == std::vector<std::string>{"_add_one_kernel"});
  CHECK(a.reachable_kernels.empty());
}

TEST_CASE("a kernel reachable only through a helper module counts; its unused sibling does not") {
  const auto a = analyze("tests/hostile/static/helper_class_kernel.py");
  CHECK(a.violations.empty());
  CHECK(a.defined_kernels == std::vector<std::string>{"_scale_kernel", "_decoy_kernel"});
  CHECK(a.reachable_kernels == std::vector<std::string>{"_scale_kernel"});
}

TEST_CASE("load_inline functions count when forward calls them on the extension module") {
  const auto a = analyze("tests/hostile/static/load_inline_module.py");
  INFO(describe(a));
  CHECK(a.violations.empty());
  CHECK(a.defined_kernels == std::vector<std::string>{"scale_forward", "unused_fn"});
  CHECK(a.reachable_kernels == std::vector<std::string>{"scale_forward"});
}

TEST_CASE("analysis never runs the candidate; unparsable files give only syntax_error") {
  // exit_on_import.py calls sys.exit() at import: running it would end this test process.
  const auto exits = analyze("tests/hostile/exit_on_import.py");
  CHECK(exits.violations.size() == 1);
  const auto broken = analyze("tests/hostile/syntax_error.py");
  CHECK(broken.violations.empty());
  CHECK(broken.defined_kernels.empty());
  CHECK(broken.syntax_error.find("SyntaxError") != std::string::npos);
  test::TempDir dir;
  // Deeper than Python's compiler accepts: refused like any syntax error, not a crash.
  std::string chain = "x = a";
  for (int i = 0; i < 200000; ++i) chain += ".b";
  const auto deep = analyze(dir.write("deep.py", chain + "\n"));
  CHECK(deep.syntax_error.find("RecursionError") != std::string::npos);
  check_honest_still_clean();
}

TEST_CASE("ModelNew is missing only when no statement of the file can bind it") {
  // The worker refuses such a file before torch is imported (lib/worker/source_verdict.hpp), with
  // the import's own compile_error: the test must never be true of a file whose import defines it.
  CHECK(analyze("tests/hostile/no_model_new.py").model_new_missing);
  CHECK_FALSE(analyze("tests/data/candidates/add_one_ok.py").model_new_missing);
  CHECK_FALSE(analyze("tests/hostile/syntax_error.py").model_new_missing);  // the import reports it
  // A file that breaks a rule is left to its import, which may exit or raise first.
  CHECK_FALSE(analyze("tests/hostile/exit_on_import.py").model_new_missing);
  test::TempDir dir;
  const std::string head = "import torch.nn as nn\nclass Model(nn.Module):\n    pass\n";
  const std::vector<std::string> binds = {
      "ModelNew = Model\n",
      "from torch.nn import Linear as ModelNew\n",
      "import torch as ModelNew\n",
      "for ModelNew in [Model]:\n    pass\n",
      "def f():\n    global ModelNew\n    ModelNew = Model\nf()\n",
      "(ModelNew := Model)\n",
      "def __getattr__(name):\n    return Model\n",                // PEP 562 answers for any name
      "setattr(nn, 'x', 1)\nname = 'ModelNew'\n",                 // a literal spelled anywhere
      "\uff2dodelNew = Model\n",                                   // fullwidth M: NFKC-normalised
  };
  for (std::size_t i = 0; i < binds.size(); ++i) {
    INFO(binds[i]);
    CHECK_FALSE(analyze(dir.write("binds" + std::to_string(i) + ".py", head + binds[i])).model_new_missing);
  }
  CHECK(analyze(dir.write("none.py", head + "model_new = Model\n")).model_new_missing);
}

TEST_CASE("an unreadable candidate is bad input") {
  CHECK_THROWS_AS(analyze(test::kSourceDir / "tests/hostile/static/no_such_file.py"), InputError);
  CHECK_THROWS_AS(analyze(test::kSourceDir / "tests/hostile/static"), InputError);
}

TEST_CASE("kbench check-candidate: findings as file:line, exit 1 on a violation, 0 when clean") {
  using test::run_kbench;
  const auto dir = test::kSourceDir.string();
  const auto clean = run_kbench("check-candidate " + dir + "/benchmarks/solutions/smoke/03_matmul_triton.py " +
                                dir + "/tests/data/candidates/add_one_ok.py");
  CHECK(clean.exit_code == 0);
  CHECK(clean.output.find("03_matmul_triton.py: ok; kernels reachable from ModelNew.forward: _matmul_kernel") !=
        std::string::npos);
  CHECK(clean.output.find("add_one_ok.py: ok; kernels reachable from ModelNew.forward: none") != std::string::npos);

  const auto hostile = dir + "/tests/hostile/static/monkeypatch_sync.py";
  const auto bad = run_kbench("check-candidate " + hostile + " " + dir + "/tests/data/candidates/add_one_ok.py");
  CHECK(bad.exit_code == 1);
  CHECK(bad.output.find(hostile + ":6: forbidden_api: assignment to torch.cuda.synchronize") != std::string::npos);
  CHECK(bad.output.find("1 of 2 candidate files failed the static checks") != std::string::npos);

  const auto decoy = dir + "/tests/hostile/static/decoy_kernel.py";
  CHECK(run_kbench("check-candidate " + decoy).exit_code == 0);
  const auto required = run_kbench("check-candidate --require-kernel " + decoy);
  CHECK(required.exit_code == 1);
  CHECK(required.output.find("no custom kernel reachable") != std::string::npos);
  CHECK(required.output.find("defined but unreachable: _add_one_kernel") != std::string::npos);

  const auto broken = run_kbench("check-candidate " + dir + "/tests/hostile/syntax_error.py");
  CHECK(broken.exit_code == 1);
  CHECK(broken.output.find("does not parse: line ") != std::string::npos);

  CHECK(run_kbench("check-candidate " + dir + "/no/such/file.py").exit_code == 2);
  CHECK(run_kbench("check-candidate").exit_code == 2);
}
