#pragma once
// Static analysis of a candidate's source before it is imported: the import/API policy and
// which kernels ModelNew.forward can reach. Only parses (Python's ast); runs no candidate code.
// The rules and their reasons: docs/integrity-static.md.
#include <filesystem>
#include <string>
#include <vector>

namespace kbench {

struct StaticFinding {
  std::string check;     // "forbidden_api"
  std::string evidence;  // what, why, and the source line
  int line = 0;
};

struct StaticAnalysis {
  std::vector<StaticFinding> violations;       // import/API policy violations
  std::vector<std::string> defined_kernels;    // @triton.jit functions and load_inline functions
  std::vector<std::string> reachable_kernels;  // those reachable from ModelNew.forward
  std::vector<StaticFinding> native_code;      // uses of torch.utils.cpp_extension (load_inline), numpy
  std::vector<StaticFinding> device_code;      // uses of triton: its kernels' pointers may be any integer
  // Set when the file does not parse ("line N: SyntaxError: ..."); everything else is then
  // empty. Not a finding: importing the candidate reports it as a compile error.
  std::string syntax_error;
  // True only when the file breaks no rule and no statement of it can bind `ModelNew` (nor a
  // module `__getattr__` answer for it): its import, if it succeeds, defines no ModelNew.
  bool model_new_missing = false;
};

// Needs the embedded interpreter running (start_python()). Throws InputError when the file
// cannot be read. The last file's analysis is kept: a worker asks up to three times (its source's
// verdict, placement, the checks) and the file is parsed once, unless its bytes changed.
StaticAnalysis analyze_candidate_source(const std::filesystem::path& candidate_file);

// Why the candidate may run machine code or reach its process's memory below Python, or ""
// when it cannot: a load_inline / cpp_extension use, numpy (its array interface views any
// address, tests/hostile/exploits/numpy_sample_forgery.py), or any policy violation (where
// forbidden_api is off; where it is on, the violation is rejected before torch is imported,
// worker/source_verdict.hpp; ctypes, /proc/self/mem or a computed import run at import time). Such a candidate is placed apart from the expected values
// (docs/threat-model.md#native-candidates-commit-then-reveal). The one detector of native code.
std::string native_code_reason(const StaticAnalysis& analysis);

// The same question for a candidate that native_code_reason clears, on its device: its own
// Triton kernels take pointers that may be any integer (pointer arithmetic from an argument), so
// wherever such a pointer is a host address the kernels reach the worker's heap, where the
// expected values are. `host_reach` says where that is the case ("" where it is not): on the CPU,
// where Triton interprets kernels on host memory; on a GPU that reads and writes pageable host
// memory (HMM or ATS: `cuda::pageable_memory_access`). "" when either is absent.
std::string device_reach_reason(const StaticAnalysis& analysis, const std::string& host_reach);
// Whether a CPU job's candidate has Triton kernels, which run interpreted there (false on CUDA,
// and for a file the analysis cannot read: the import reports that).
bool kernels_interpreted_on_host(const std::filesystem::path& candidate_file, bool cuda);
// The two `host_reach` texts.
inline constexpr const char* kInterpretedOnHost = "run interpreted on the CPU, where a pointer is a host address";
inline constexpr const char* kPageableMemoryGpu = "run on a GPU that reads and writes pageable host memory (HMM/ATS)";

}  // namespace kbench
