#include "worker/problem_context.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "worker/phase_clock.hpp"
#include "worker/python_runtime.hpp"
#include "worker/reference_work.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {

ProblemContext::ProblemContext(const Job& job_) : job(job_) {
  try {
    // Steps of problem_setup: on a loaded machine (8 slots, cold caches) it took 31 s once.
    const PhaseStep step("torch_settings");
    torch = py::module_::import("torch");
    torch.attr("set_grad_enabled")(false);
    // TF32 silently changes fp32 results and speed; pin it off for every variant.
    torch.attr("backends").attr("cuda").attr("matmul").attr("allow_tf32") = false;
    torch.attr("backends").attr("cudnn").attr("allow_tf32") = false;
    device = torch.attr("device")(to_string(job.device));
    dtype = torch.attr(job.settings.dtype.c_str());
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "torch is not usable in the worker",
                  {{"traceback", describe_python_error(e)}}};
  }
  timing = job.timing;
  tolerance = job_tolerance(job);
  try {
    const PhaseStep step("problem_import");
    problem = import_file(job.problem_file, "kbench_problem");
    for (const char* name : {"Model", "get_inputs", "get_init_inputs"})
      if (!py::hasattr(problem, name))
        throw Verdict{Status::problem_error, fmt::format("problem file defines no `{}`", name)};
    problem_code_file = py::str(problem.attr("__file__")).cast<std::string>();
    builder = std::make_unique<TrialBuilder>(torch, device, dtype, problem);
    builder->set_constants(job.size_overrides);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "the problem file failed to import",
                  {{"traceback", describe_python_error(e)}}};
  }
}

DeviceMemory& ProblemContext::memory() const {
  if (!memory_) {
    const char* grant = std::getenv("KBENCH_MEMORY_GRANT");
    memory_ = std::make_unique<DeviceMemory>(torch, device, job.device.is_cuda(),
                                             grant ? std::filesystem::path(grant) : std::filesystem::path());
  }
  return *memory_;
}

Tolerance job_tolerance(const Job& job) {
  const Tolerance defaults = default_tolerance(job.settings.dtype);
  return {job.settings.atol.value_or(defaults.atol), job.settings.rtol.value_or(defaults.rtol)};
}

py::object build_model_with_constants(const ProblemContext& context, py::handle cls, int seed,
                                      const nlohmann::json& constants) {
  const nlohmann::json previous = context.builder->set_constants(constants);
  py::object model;
  try {
    model = context.builder->build_model(cls, seed);
  } catch (...) {
    context.builder->set_constants(previous);
    throw;
  }
  context.builder->set_constants(previous);
  return model;
}

void ProblemContext::rebuild(Trial& trial, const Trial* first) const {
  try {
    const bool own_model = trial.kind == TrialKind::seed || trial.kind == TrialKind::alt_distribution ||
                           trial.kind == TrialKind::alt_shape;
    if (own_model || !first)
      trial.model = build_model_with_constants(*this, problem.attr("Model"), trial.model_seed, trial.constants);
    else
      trial.model = first->model;
    const nlohmann::json previous = builder->set_constants(trial.constants);
    try {
      trial.inputs = trial.kind == TrialKind::alt_distribution ? builder->build_alt_inputs(trial.seed)
                                                               : builder->build_inputs(trial.seed);
    } catch (...) {
      builder->set_constants(previous);
      throw;
    }
    builder->set_constants(previous);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "rebuilding the reference trials failed",
                  {{"traceback", describe_python_error(e)}}};
  }
  const std::string where = fmt::format("{} trial, seed {}", to_string(trial.kind), trial.seed);
  if (trial.input_digests.size() != trial.inputs.size())
    throw Verdict{Status::problem_error,
                  fmt::format("get_inputs() gave {} inputs where the reference work has {} ({})",
                              trial.inputs.size(), trial.input_digests.size(), where)};
  for (std::size_t i = 0; i < trial.inputs.size(); ++i)
    if (input_digest(trial.inputs[i]) != trial.input_digests[i])
      throw Verdict{Status::problem_error,
                    fmt::format("input {} of the {} is not a function of its seed: the reference "
                                "work cannot be reused in another process (make get_inputs() draw "
                                "only from torch's seeded generator)",
                                i, where)};
}

}  // namespace kbench
