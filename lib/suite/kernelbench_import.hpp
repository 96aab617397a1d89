#pragma once
// `kbench import kernelbench DIR`: a suite over an unmodified KernelBench checkout
// (github.com/ScalingIntelligence/KernelBench, `KernelBench/levelN/<number>_<Name>.py`).
// Nothing in the checkout is written; the suite refers to its files by relative paths.
#include <filesystem>
#include <string>
#include <vector>

namespace kbench {

struct KernelBenchProblem {
  int level = 1;
  int number = 0;        // the file name's prefix, KernelBench's problem_id
  std::string name;      // the rest of the stem, as written ("Square_matrix_multiplication_")
  std::string id;        // "L<level>_<number>_<name>", e.g. L1_19_ReLU
  std::filesystem::path file;  // absolute
  std::vector<std::string> tags;
};

struct KernelBenchImportOptions {
  std::filesystem::path checkout;   // the checkout, or its KernelBench/ folder
  std::vector<int> levels = {1, 2, 3};
  // Candidate file patterns; {level} {number} {name} {id} expand per problem. Relative patterns
  // are relative to the current directory (as with `kbench run --candidates`). Empty: the
  // default, `candidates/{id}/*.py` next to the output suite.
  std::vector<std::string> candidate_patterns;
  std::string precision = "fp32";   // KernelBench's names: fp32, fp16, bf16
  std::filesystem::path output;     // the suite file to write
  bool force = false;               // replace an existing output
};

// The KernelBench/ folder with the levelN folders: `dir` itself or `dir/KernelBench`. Throws
// InputError (exit 2) naming what was expected when neither holds level folders with problems.
std::filesystem::path find_kernelbench_root(const std::filesystem::path& dir);

// The problems of `levels`, by level then number. Throws InputError for a level the checkout
// does not have. Files whose names are not `<number>_<Name>.py` are not problems and are skipped.
std::vector<KernelBenchProblem> scan_kernelbench(const std::filesystem::path& root,
                                                 const std::vector<int>& levels);

// Tags from a problem's file name: operation families (matmul, conv, ...) found in its words,
// plus `single_op` / `fusion` / `architecture` for levels 1 / 2 / 3.
std::vector<std::string> kernelbench_tags(int level, const std::string& name);

// `pattern` with {level}, {number}, {name} and {id} replaced by the problem's.
std::string expand_problem_pattern(std::string pattern, const KernelBenchProblem& problem);

// The suite's YAML text; paths in it are relative to `suite_dir`.
std::string kernelbench_suite_yaml(const std::vector<KernelBenchProblem>& problems,
                                   const KernelBenchImportOptions& options,
                                   const std::filesystem::path& suite_dir);

// Checks everything, then writes the suite atomically. Refuses (InputError) an existing output
// without `force` and an output inside the checkout, which stays unmodified. Returns the problems.
std::vector<KernelBenchProblem> import_kernelbench(const KernelBenchImportOptions& options);

}  // namespace kbench
