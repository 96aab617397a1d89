// `kbench slurm SUITE --shards N ... [--submit] [-- run args]`: writes the sbatch files of a
// sharded run and, with --submit, submits them (docs/cluster.md).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "cluster/sbatch_submit.hpp"
#include "cluster/slurm_script.hpp"
#include "commands.hpp"
#include "number_option.hpp"
#include "core/error.hpp"
#include "report/results_json.hpp"

namespace kbench::cli {
namespace {

struct SlurmArgs {
  SlurmPlan plan;
  std::string suite, out, kbench, baseline;
  bool submit = false;
};

std::optional<std::string> read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` unless the file already holds it; refuses to replace different content, since
// the shards' journals in that folder belong to the scripts that are there.
void write_script(const std::filesystem::path& file, const std::string& text) {
  if (const auto existing = read_text(file)) {
    if (*existing == text) return;
    throw InputError(fmt::format("{}: exists with other settings; its shards' journals belong to it. "
                                 "Choose another --out, or delete the folder to start over",
                                 file.string()));
  }
  write_file_atomically(file, [&](std::ostream& out) { out << text; });
}

void check_run_args(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    const std::string flag = a.substr(0, a.find('='));
    for (const char* ours : {"--shard", "-o", "--output", "--json", "--journal", "--resume"})
      if (flag == ours)
        throw InputError(fmt::format("'{}' after --: kbench slurm sets {} for every shard itself", a, ours));
  }
}

}  // namespace

void add_slurm_command(CLI::App& app) {
  auto args = std::make_shared<SlurmArgs>();
  auto& plan = args->plan;
  auto* cmd = app.add_subcommand(
      "slurm", "Write (and with --submit, submit) Slurm sbatch files: a job array of `kbench run "
               "--shard i/N` tasks and a dependent merge (+ compare) job");
  cmd->add_option("suite", args->suite, "Suite YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("run_args", plan.run_args, "After --: more `kbench run` arguments for every shard")
      ->type_name("-- ARGS");
  cmd->add_option("--shards", plan.shards, "Number of shards (array tasks)")
      ->default_val(4)
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--gpus-per-task", plan.gpus_per_task, "GPUs per array task, through GRES (0: CPU)")
      ->default_val(1)
      ->check(CLI::Range(0, 64));
  cmd->add_option("--cpus-per-task", plan.cpus_per_task, "CPUs per array task (default: the partition's)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--partition", plan.partition, "Slurm partition (default: the cluster's default)");
  cmd->add_option("--time", plan.time_limit, "Time limit of each task, sbatch syntax (e.g. 02:00:00)");
  cmd->add_option("--job-name", plan.job_name, "Job name (default: kbench-<suite file name>)");
  cmd->add_option("--out", args->out, "Folder for the scripts, shard results, logs and merged.json "
                                      "(default: slurm-<suite file name>)");
  cmd->add_option("--baseline", args->baseline,
                  "Results JSON to compare the merged run with (the regression gate)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--fail-on-regression", plan.regression_percent,
                  "With --baseline: the merge job fails when a candidate is SLOWER by >= PCT percent "
                  "or newly failing")
      ->default_val(5)
      ->check(documented_range("--fail-on-regression"))
      ->type_name("PCT");
  cmd->add_option("--kbench", args->kbench, "kbench binary the jobs run (default: this one)");
  cmd->add_flag("--submit", args->submit, "Submit with sbatch and print the job ids");
  cmd->callback([args] {
    auto& plan = args->plan;
    namespace fs = std::filesystem;
    plan.suite = fs::absolute(args->suite).lexically_normal();
    plan.out_dir = fs::absolute(args->out.empty() ? "slurm-" + plan.suite.stem().string() : args->out)
                       .lexically_normal();
    plan.kbench = args->kbench.empty() ? fs::read_symlink("/proc/self/exe") : fs::absolute(args->kbench);
    if (!args->baseline.empty()) plan.baseline = fs::absolute(args->baseline).lexically_normal();
    check_plan(plan);
    check_run_args(plan.run_args);
    std::error_code ec;
    fs::create_directories(plan.out_dir / "logs", ec);
    if (ec) throw InputError(fmt::format("--out {}: cannot create it ({})", plan.out_dir.string(), ec.message()));
    write_script(array_script_path(plan), array_script(plan));
    write_script(merge_script_path(plan), merge_script(plan));
    std::printf("wrote %s\nwrote %s\n", array_script_path(plan).c_str(), merge_script_path(plan).c_str());
    if (!args->submit) {
      std::printf("submit with:\n  jobid=$(sbatch --parsable %s)\n  sbatch --dependency=afterany:$jobid %s\n",
                  shell_word(array_script_path(plan).string()).c_str(),
                  shell_word(merge_script_path(plan).string()).c_str());
      return;
    }
    const SubmittedJobs jobs = submit_plan(array_script_path(plan), merge_script_path(plan));
    std::printf("array job %s (%zu tasks)\nmerge job %s (after the array)\nresults: %s\n",
                jobs.array_job.c_str(), plan.shards, jobs.merge_job.c_str(),
                (plan.out_dir / "merged.json").c_str());
  });
}

}  // namespace kbench::cli
