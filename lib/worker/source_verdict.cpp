#include "worker/source_verdict.hpp"

#include <fmt/format.h>
#include <pybind11/eval.h>

#include <chrono>

#include "core/text.hpp"
#include "integrity/integrity_monitor.hpp"
#include "integrity/static_analysis.hpp"
#include "worker/python_runtime.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// The import's own compile step (the loader that import_file uses, its get_data and
// source_to_code), without executing the module. Warnings are silenced: the import compiles
// the file again and shows them then, once.
constexpr const char* kCompileCheck = R"(
import importlib.util
import warnings

def compile_candidate(path):
    spec = importlib.util.spec_from_file_location("kbench_candidate", path)
    data = spec.loader.get_data(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.source_to_code(data, path)
)";

// The SyntaxError of the file, or nullopt when it compiles or fails otherwise (a ValueError for
// NUL bytes, an unreadable file...: the import reports those as before).
std::optional<Verdict> compile_failure(const std::filesystem::path& file) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kCompileCheck, scope);
  try {
    scope["compile_candidate"](file.string());
  } catch (const py::error_already_set& e) {
    if (e.matches(PyExc_SyntaxError)) return syntax_error_verdict(e, file);
  }
  return std::nullopt;
}

JobResult decided(const Job& job, const Verdict& verdict, double cost_s) {
  JobResult result;
  result.job = job;
  result.status = verdict.status;
  result.message = verdict.message;
  result.diagnostics.update(verdict.diagnostics);
  IntegrityMonitor levels(job);
  levels.add_cost(cost_s);
  levels.report(result.diagnostics);
  return result;
}

}  // namespace

Verdict syntax_error_verdict(const py::error_already_set& e, const std::filesystem::path& candidate_file) {
  std::string text;
  try {
    py::list lines = py::module_::import("traceback").attr("format_exception_only")(e.type(), e.value());
    for (auto line : lines) text += line.cast<std::string>();
  } catch (const py::error_already_set&) {
    text = e.what();
  }
  nlohmann::json diagnostics = {{"traceback", tail_of(text, 6000)}};
  // A SyntaxError (or IndentationError) names the line the author must fix: say it up front.
  py::object value = e.value();
  py::object file = py::getattr(value, "filename", py::none());
  py::object line = py::getattr(value, "lineno", py::none());
  py::object what = py::getattr(value, "msg", py::none());
  const std::string file_text = file.is_none() ? candidate_file.string() : py::str(file).cast<std::string>();
  std::string where = fmt::format(" at {}", file_text);
  diagnostics["file"] = file_text;
  if (!line.is_none()) {
    where += fmt::format(":{}", py::str(line).cast<std::string>());
    diagnostics["line"] = line.cast<long long>();
  }
  if (!what.is_none()) where += fmt::format(": {}", py::str(what).cast<std::string>());
  return Verdict{Status::compile_error, fmt::format("the candidate failed to import: {}{}", python_error_type(e), where),
                 diagnostics};
}

Verdict no_model_new_verdict() { return Verdict{Status::compile_error, "the candidate defines no `ModelNew` class"}; }

std::optional<JobResult> source_verdict(const Job& job) {
  if (auto failed = compile_failure(job.candidate_file)) return decided(job, *failed, 0);
  // The analysis is the static checks' cost (integrity_cost_s), as before the import.
  const auto started = std::chrono::steady_clock::now();
  const auto cost = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  StaticAnalysis analysis;
  try {
    // Parsed once per process: the checks before the import ask for the same file again.
    analysis = analyze_candidate_source(job.candidate_file);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // The import would succeed (it compiles) and could define no ModelNew: the unit's first check.
  if (analysis.model_new_missing) return decided(job, no_model_new_verdict(), cost());
  if (auto rejected = IntegrityMonitor::static_rejection(job, analysis)) return decided(job, *rejected, cost());
  return std::nullopt;
}

}  // namespace kbench
