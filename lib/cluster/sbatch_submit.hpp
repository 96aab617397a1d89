#pragma once
// Submitting the scripts of slurm_script.hpp with the cluster's own `sbatch`.
#include <filesystem>
#include <optional>
#include <string>

namespace kbench {

struct SubmittedJobs {
  std::string array_job;  // the job array's id
  std::string merge_job;  // the dependent merge job's id
};

// `sbatch --parsable [--dependency=afterany:AFTER] SCRIPT`; returns the job id sbatch printed.
// Throws EnvironmentError when sbatch is missing or refuses the script (its stderr quoted).
std::string sbatch(const std::filesystem::path& script, const std::optional<std::string>& after_any);

// The array, then the merge job depending on all of its tasks.
SubmittedJobs submit_plan(const std::filesystem::path& array_script,
                          const std::filesystem::path& merge_script);

}  // namespace kbench
