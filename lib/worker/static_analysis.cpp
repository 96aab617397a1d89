// PLACEHOLDER: replaced at merge by helper D's implementation (AST analysis of the candidate).
// Until then: every function decorated with `@triton.jit` (or `@triton.autotune`...`@triton.jit`)
// counts as defined and reachable, and nothing is a violation. No check relies on more than that.
#include "worker/static_analysis.hpp"

#include <fstream>
#include <regex>

namespace kbench {

StaticAnalysis analyze_candidate_source(const std::filesystem::path& candidate_file) {
  StaticAnalysis analysis;
  std::ifstream in(candidate_file);
  static const std::regex def(R"(^\s*def\s+([A-Za-z_]\w*)\s*\()");
  bool decorated = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("@triton.jit") != std::string::npos || line.find("@jit") != std::string::npos)
      decorated = true;
    std::smatch m;
    if (std::regex_search(line, m, def)) {
      if (decorated) analysis.defined_kernels.push_back(m[1]);
      decorated = false;
    }
  }
  analysis.reachable_kernels = analysis.defined_kernels;
  return analysis;
}

}  // namespace kbench
