// The sbatch files of `kbench slurm`: what they ask Slurm for, how they quote, and that the merge
// script, run by bash as Slurm would, merges shards and applies the regression gate. The real
// scheduler is exercised by tests/cluster/test_slurm.sh.
#include <fmt/format.h>

#include <cstdlib>
#include <sys/wait.h>

#include "catch.hpp"
#include "cluster/slurm_script.hpp"
#include "core/error.hpp"
#include "report/results_json.hpp"
#include "run/shard.hpp"
#include "sample_report.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {

SlurmPlan plan_in(const std::filesystem::path& dir) {
  SlurmPlan plan;
  plan.kbench = test::kKbench;
  plan.suite = "/suites/level 1's.yaml";
  plan.out_dir = dir;
  plan.shards = 2;
  plan.job_name = "kb";
  return plan;
}

int run_bash(const std::filesystem::path& script) {
  const int status = std::system(("bash " + script.string() + " >" + script.string() + ".log 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("shell_word quotes only what needs it") {
  CHECK(shell_word("/a/b-c_d.yaml") == "/a/b-c_d.yaml");
  CHECK(shell_word("--max-time=2") == "--max-time=2");
  CHECK(shell_word("a b") == "'a b'");
  CHECK(shell_word("it's") == "'it'\\''s'");
  CHECK(shell_word("$(rm -rf /)") == "'$(rm -rf /)'");
  CHECK(shell_word("") == "''");
}

TEST_CASE("the array script asks for GPUs through GRES and resumes from its journal") {
  SlurmPlan plan = plan_in("/scratch/out");
  plan.shards = 8;
  plan.gpus_per_task = 2;
  plan.partition = "gpu";
  plan.time_limit = "02:00:00";
  plan.run_args = {"--timing-mode", "graph", "--candidates", "sol/{id} x.py"};
  const std::string s = array_script(plan);
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  for (const char* line : {"#SBATCH --array=0-7\n", "#SBATCH --gres=gpu:2\n", "#SBATCH --partition=gpu\n",
                           "#SBATCH --time=02:00:00\n", "#SBATCH --job-name=kb\n",
                           "#SBATCH --output=/scratch/out/logs/shard-%a.job-%A.out\n",
                           "SUITE='/suites/level 1'\\''s.yaml'\n",
                           "if [ -f \"$journal\" ]; then resume=(--resume); fi\n",
                           "--shard \"$i/8\" -o \"$OUT/shard-$i.json\"",
                           "--timing-mode graph --candidates 'sol/{id} x.py'\n"})
  {
    INFO(line);
    CHECK(s.find(line) != std::string::npos);
  }
  plan.gpus_per_task = 0;
  CHECK(array_script(plan).find("--gres") == std::string::npos);
}

TEST_CASE("plans sbatch would misread are refused") {
  SlurmPlan plan = plan_in("/scratch/out");
  CHECK_NOTHROW(check_plan(plan));
  plan.partition = "gpu; rm -rf /";
  CHECK_THROWS_AS(check_plan(plan), InputError);
  plan = plan_in("/scratch/my out");
  CHECK_THROWS_AS(check_plan(plan), InputError);
  plan = plan_in("/scratch/out");
  plan.shards = 0;
  CHECK_THROWS_AS(check_plan(plan), InputError);
}

TEST_CASE("the merge script refuses missing shards, merges, and gates on the baseline") {
  test::TempDir dir;
  SlurmPlan plan = plan_in(dir.path());
  const RunReport whole = test::sample_report();
  write_results_json(whole, dir.path() / "base.json");
  plan.baseline = dir.path() / "base.json";
  plan.regression_percent = 5;
  const auto script = dir.write("merge.sbatch", merge_script(plan));
  CHECK(merge_script(plan).find("--fail-on-regression 5 ") != std::string::npos);

  auto write_shards = [&](double slowdown) {
    for (std::size_t i = 0; i < plan.shards; ++i) {
      RunReport part = whole;
      part.results.clear();
      for (auto r : whole.results)
        if (in_shard(r.job.problem_id, {i, plan.shards})) {
          if (auto t = r.timings.find("candidate"); t != r.timings.end())
            for (auto& s : t->second.samples_ms) s *= slowdown;
          derive_statistics(r);
          part.results.push_back(r);
        }
      part.planned_jobs = part.results.size();
      write_results_json(part, shard_results_path(plan, i));
    }
  };
  // Shard 1 missing: exit 2, naming it.
  write_shards(1.0);
  std::filesystem::remove(shard_results_path(plan, 1));
  CHECK(run_bash(script) == 2);
  CHECK(!std::filesystem::exists(dir.path() / "merged.json"));

  write_shards(1.0);
  CHECK(run_bash(script) == 0);
  CHECK(std::filesystem::exists(dir.path() / "merged.json"));
  CHECK(std::filesystem::exists(dir.path() / "compare.md"));
  CHECK(std::filesystem::exists(dir.path() / "compare.junit.xml"));

  write_shards(1.5);  // every correct candidate 50% slower
  CHECK(run_bash(script) == 1);
}

TEST_CASE("kbench slurm writes the scripts once and refuses what would break its shards") {
  test::TempDir dir;
  const std::string suite = (test::kDataDir / "suites" / "cluster.yaml").string();
  const std::string out = (dir.path() / "out").string();
  const auto first = test::run_kbench(fmt::format("slurm {} --shards 3 --out {} -- --device cpu", suite, out));
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.find("sbatch --dependency=afterany:$jobid") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path() / "out" / "logs"));
  // The same settings again: nothing changes. Other settings: refused, the journals belong to it.
  CHECK(test::run_kbench(fmt::format("slurm {} --shards 3 --out {} -- --device cpu", suite, out)).exit_code == 0);
  const auto other = test::run_kbench(fmt::format("slurm {} --shards 4 --out {}", suite, out));
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("exists with other settings") != std::string::npos);
  const auto ours = test::run_kbench(fmt::format("slurm {} --out {}/b -- --shard 1/2", suite, out));
  CHECK(ours.exit_code == 2);
  CHECK(ours.output.find("kbench slurm sets --shard") != std::string::npos);
}
