#include "integrity/static_analysis.hpp"

#include <fmt/format.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <utility>

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

// The analyzer's uses of a family of names ([{"line", "what"}]) as findings named `check`.
std::vector<StaticFinding> uses(py::handle list, const char* check) {
  std::vector<StaticFinding> out;
  for (auto n : list) out.push_back({check, n["what"].cast<std::string>(), n["line"].cast<int>()});
  return out;
}

}  // namespace

StaticAnalysis analyze_candidate_source(const std::filesystem::path& candidate_file) {
  const std::string source = read_bytes(candidate_file);
  static std::optional<std::pair<std::string, StaticAnalysis>> last;
  if (last && last->first == source) return last->second;
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
  analysis.native_code = uses(result["native_code"], "native_code");
  analysis.device_code = uses(result["device_code"], "device_code");
  analysis.syntax_error = result["syntax_error"].cast<std::string>();
  analysis.model_new_missing = result["model_new_missing"].cast<bool>();
  last.emplace(source, analysis);
  return analysis;
}

std::string native_code_reason(const StaticAnalysis& analysis) {
  if (!analysis.native_code.empty())
    return fmt::format("line {}: {}", analysis.native_code.front().line, analysis.native_code.front().evidence);
  if (!analysis.violations.empty())
    return fmt::format("line {}: {}", analysis.violations.front().line, analysis.violations.front().evidence);
  return "";
}

bool kernels_interpreted_on_host(const std::filesystem::path& candidate_file, bool cuda) {
  if (cuda) return false;
  try {
    return !analyze_candidate_source(candidate_file).device_code.empty();
  } catch (const InputError&) {
    return false;
  }
}

std::string device_reach_reason(const StaticAnalysis& analysis, const std::string& host_reach) {
  if (host_reach.empty() || analysis.device_code.empty()) return "";
  return fmt::format("line {}: {} kernels {}: a pointer in a kernel reaches the worker's heap",
                     analysis.device_code.front().line, analysis.device_code.front().evidence, host_reach);
}

}  // namespace kbench
