#pragma once
// `kbench slurm`: the sbatch files of a sharded run (docs/cluster.md). They are written for a
// cluster admin to read: one job array whose task i runs `kbench run --shard i/N`, and one merge
// job, started after the whole array (afterany), that joins the shards and optionally gates on a
// baseline. Nothing here talks to Slurm; sbatch_submit.hpp does.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kbench {

struct SlurmPlan {
  std::filesystem::path kbench;  // absolute path of the kbench binary the jobs run
  std::filesystem::path suite;   // absolute
  std::filesystem::path out_dir;  // absolute; shard-i.json, journals, logs, merged.json
  std::size_t shards = 1;
  int gpus_per_task = 0;   // GRES gpu:G per array task; 0 = a CPU run
  int cpus_per_task = 0;   // 0 = leave it to the partition's default
  std::string partition;   // "" = the cluster's default partition
  std::string time_limit;  // sbatch --time, e.g. 02:00:00; "" = the partition's default
  std::string job_name;    // default: kbench-<suite file stem>
  std::optional<std::filesystem::path> baseline;  // absolute; adds `kbench compare`
  double regression_percent = 5;
  std::vector<std::string> run_args;  // passed to every `kbench run` after ours
};

// Where each file of a plan lives (all under out_dir).
std::filesystem::path array_script_path(const SlurmPlan& plan);  // array.sbatch
std::filesystem::path merge_script_path(const SlurmPlan& plan);  // merge.sbatch
std::filesystem::path shard_results_path(const SlurmPlan& plan, std::size_t index);

// Throws InputError for settings sbatch would refuse later, with what to do instead.
void check_plan(const SlurmPlan& plan);

std::string array_script(const SlurmPlan& plan);
std::string merge_script(const SlurmPlan& plan);

// `text` as one word for bash: itself when it holds only safe characters, else single-quoted.
std::string shell_word(const std::string& text);

}  // namespace kbench
