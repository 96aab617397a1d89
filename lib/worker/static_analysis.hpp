#pragma once
// Static analysis of a candidate's source (helper D's interface; this header is replaced at merge
// by helper D's, which must keep these declarations). Needs the embedded interpreter running.
#include <filesystem>
#include <string>
#include <vector>

namespace kbench {

struct StaticFinding {
  std::string check;
  std::string evidence;
  int line = 0;
};

struct StaticAnalysis {
  std::vector<StaticFinding> violations;       // import/API policy violations (check = "forbidden_api")
  std::vector<std::string> defined_kernels;    // @triton.jit functions and load_inline functions defined
  std::vector<std::string> reachable_kernels;  // those reachable from ModelNew.forward
};

StaticAnalysis analyze_candidate_source(const std::filesystem::path& candidate_file);

}  // namespace kbench
