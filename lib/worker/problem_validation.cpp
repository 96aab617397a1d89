#include "worker/problem_validation.hpp"

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include "problem_validation_source.hpp"  // generated: kProblemValidationSource
#include "model/codec.hpp"
#include "model/tolerance.hpp"
#include "worker/python_runtime.hpp"

namespace py = pybind11;

namespace kbench {

ProblemReport validate_problem(const Job& job, bool inductor) {
  const Tolerance defaults = default_tolerance(job.settings.dtype);
  const nlohmann::json request = {{"problem_file", job.problem_file.string()},
                                  {"device", to_string(job.device)},
                                  {"dtype", job.settings.dtype},
                                  {"sizes", job.size_overrides},
                                  {"atol", job.settings.atol.value_or(defaults.atol)},
                                  {"rtol", job.settings.rtol.value_or(defaults.rtol)},
                                  {"inductor", inductor}};
  try {
    // A fresh namespace, as for the static analyzer: nothing of it is left in sys.modules.
    py::dict scope;
    scope["__builtins__"] = py::module_::import("builtins");
    scope["__name__"] = "kbench_problem_validation";
    py::exec(kProblemValidationSource, scope);
    const auto text = scope["validate"](request.dump()).cast<std::string>();
    return problem_report_from_json(nlohmann::json::parse(text), "validation report");
  } catch (const py::error_already_set& e) {
    ProblemReport failed;
    failed.error = describe_python_error(e);
    return failed;
  }
}

}  // namespace kbench
