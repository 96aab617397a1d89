#include "integrity/static_analysis.hpp"

#include <fmt/format.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "static_analysis_source.hpp"  // generated: kNativeSourcePolicySource, kStaticAnalysisSource

namespace py = pybind11;

namespace kbench {
namespace {

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in.is_open() || std::filesystem::is_directory(file))
    throw InputError(fmt::format("{}: cannot open the candidate file; check the path", file.string()));
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw InputError(fmt::format("{}: cannot read the candidate file", file.string()));
  return bytes;
}

// The analyzer runs in a fresh namespace each time: it is never registered in sys.modules, so
// candidate code imported later cannot find or patch it, and nothing outlives the call.
py::object analyzer() {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  scope["__name__"] = "kbench_static_analysis";
  py::exec(kNativeSourcePolicySource, scope);  // defines native_source_findings, used below
  py::exec(kStaticAnalysisSource, scope);
  return scope["analyze"];
}

std::vector<std::string> strings(py::handle list) {
  std::vector<std::string> out;
  for (auto item : list) out.push_back(item.cast<std::string>());
  return out;
}

}  // namespace

StaticAnalysis analyze_candidate_source(const std::filesystem::path& candidate_file) {
  const std::string source = read_bytes(candidate_file);
  py::dict result;
  try {
    result = analyzer()(py::bytes(source));
  } catch (const py::error_already_set& e) {
    // The analyzer handles every parse outcome itself; an exception here is a kbench bug.
    throw Error(kExitInternal,
                fmt::format("static analysis of {} failed: {}", candidate_file.string(), e.what()));
  }
  StaticAnalysis analysis;
  for (auto v : result["violations"]) {
    analysis.violations.push_back({v["check"].cast<std::string>(),
                                   v["evidence"].cast<std::string>(), v["line"].cast<int>()});
  }
  analysis.defined_kernels = strings(result["defined_kernels"]);
  analysis.reachable_kernels = strings(result["reachable_kernels"]);
  analysis.syntax_error = result["syntax_error"].cast<std::string>();
  return analysis;
}

}  // namespace kbench
