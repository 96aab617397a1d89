#pragma once
// A CPU job of `problem` with the eager baseline and the CPU's default timing: the jobs the kept
// reference store and the reference fill key their records on in the unit tests.
#include <filesystem>
#include <string>

#include "device/device.hpp"
#include "measure/timing_config.hpp"
#include "model/job.hpp"

namespace kbench::test {

inline Job cpu_job(const std::string& problem, const std::filesystem::path& problem_file,
                   const std::string& candidate = "a.py") {
  Job job;
  job.problem_id = problem;
  job.problem_file = problem_file;
  job.candidate = candidate;
  job.device = cpu_device();
  job.settings.baselines = {"eager"};
  job.timing = resolve_timing(TimingConfig{}, DeviceKind::cpu);
  return job;
}

}  // namespace kbench::test
