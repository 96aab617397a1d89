#include "catch.hpp"
#include "core/error.hpp"
#include "model/codec.hpp"
#include "run/job_planning.hpp"
#include "suite/suite.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::TempDir;

TEST_CASE("candidate patterns expand {id} relative to the suite and sort") {
  TempDir dir;
  dir.write("problems/a.py", "");
  dir.write("problems/b.py", "");
  dir.write("solutions/a_triton.py", "");
  dir.write("solutions/a_wrong.py", "");
  dir.write("solutions/b_triton.py", "");
  dir.write("solutions/b_notes.txt", "");
  const auto file = dir.write("suites/s.yaml", R"(suite: s
candidates: ../solutions/{id}_*.py
problems:
  - {id: a, file: ../problems/a.py, sizes: {cpu: {N: 4}, cuda: {N: 4096}}}
  - {id: b, file: ../problems/b.py, tags: [t]}
)");
  const auto jobs = plan_jobs(load_suite(file), cpu_device());
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].problem_id == "a");
  CHECK(jobs[0].candidate == "a_triton.py");
  CHECK(jobs[1].candidate == "a_wrong.py");
  CHECK(jobs[2].candidate == "b_triton.py");
  CHECK(jobs[0].size_overrides["N"] == 4);
  CHECK(jobs[2].size_overrides.empty());
  CHECK(jobs[0].candidate_file.is_absolute());

  const auto gpu_jobs = plan_jobs(load_suite(file), cuda_device(1));
  CHECK(gpu_jobs[0].size_overrides["N"] == 4096);
  CHECK(gpu_jobs[0].device == cuda_device(1));
}

// One builder for the problem's part of a job: planning and `kbench validate` share it.
TEST_CASE("problem_job is the problem's part of every planned job, without a candidate") {
  TempDir dir;
  dir.write("a.py", "");
  dir.write("a_triton.py", "");
  const auto file = dir.write("s.yaml", R"(suite: s
candidates: '{id}_*.py'
defaults: {seeds: 2}
problems:
  - {id: a, file: a.py, level: 2, tags: [t], sizes: {cpu: {N: 4}}, alt_sizes: {cpu: {N: 6}}}
)");
  const Suite suite = load_suite(file);
  const Job alone = problem_job(suite.problems[0], cpu_device());
  CHECK(alone.candidate.empty());
  CHECK(alone.candidate_file.empty());
  CHECK(alone.size_overrides["N"] == 4);
  CHECK(alone.alt_size_overrides["N"] == 6);
  Job planned = plan_jobs(suite, cpu_device()).at(0);
  CHECK(planned.candidate == "a_triton.py");
  planned.candidate.clear();
  planned.candidate_file.clear();
  CHECK(to_json(planned) == to_json(alone));
}

TEST_CASE("a problem that matches no candidate file is an input error naming it") {
  TempDir dir;
  dir.write("a.py", "");
  const auto file = dir.write("s.yaml", "suite: s\ncandidates: none/{id}.py\nproblems:\n  - {id: a, file: a.py}\n");
  try {
    plan_jobs(load_suite(file), cpu_device());
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("/s.yaml:4:5: problem 'a': no candidate file matches none/{id}.py") != std::string::npos);
    CHECK(std::string(e.what()).find("(suite patterns are relative to " + dir.path().string() + ")") != std::string::npos);
  }
  // An absolute pattern (what --candidates becomes: taken from the working directory) is not
  // said to be relative to the suite's folder.
  Suite suite = load_suite(file);
  suite.problems.at(0).candidate_patterns = {(dir.path() / "elsewhere/{id}.py").string()};
  try {
    plan_jobs(suite, cpu_device());
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("no candidate file matches " + (dir.path() / "elsewhere/{id}.py").string()) != std::string::npos);
    CHECK(what.find("relative to") == std::string::npos);
  }
}

TEST_CASE("jobs round-trip through JSON") {
  Job job;
  job.problem_id = "p";
  job.problem_file = "/x/p.py";
  job.level = 2;
  job.tags = {"a"};
  job.candidate = "c.py";
  job.candidate_file = "/x/c.py";
  job.device = cuda_device(0);
  job.settings.timing.min_samples = 9;
  job.settings.timing.mode = TimingMode::hot;
  job.timing = resolve_timing(job.settings.timing, job.device.kind);  // as planning does
  job.settings.atol = 0.1;
  job.size_overrides = {{"N", 3}};
  job.alt_size_overrides = {{"N", 5}};
  job.settings.checks = CheckLevel::standard;
  job.settings.require_custom_kernel = true;
  job.settings.min_custom_kernel_share = 0.7;
  job.settings.flag_speedup_above = 12;
  job.settings.alt_inputs = false;
  job.settings.build_timeout_s = 120;
  const Job back = job_from_json(to_json(job));
  CHECK(*back.settings.build_timeout_s == 120);
  CHECK(back.alt_size_overrides["N"] == 5);
  CHECK(back.settings.checks == CheckLevel::standard);
  CHECK(back.settings.require_custom_kernel);
  CHECK(back.settings.min_custom_kernel_share == 0.7);
  CHECK(back.settings.flag_speedup_above == 12);
  CHECK(!back.settings.alt_inputs);
  CHECK(back.problem_id == "p");
  CHECK(back.level == 2);
  CHECK(back.device == cuda_device(0));
  CHECK(back.timing.min_samples == 9);
  CHECK(back.timing.mode == TimingMode::hot);
  CHECK(back.timing.max_time_s == 8.0);  // resolved for cuda at planning
  CHECK(*back.settings.atol == 0.1);
  CHECK(!back.settings.rtol);
  CHECK(back.size_overrides["N"] == 3);
}

TEST_CASE("device kinds") {
  CHECK(parse_device("cpu")->kind == DeviceKind::cpu);
  CHECK(parse_device("cuda")->kind == DeviceKind::cuda);
  CHECK(parse_device("cuda:3")->kind == DeviceKind::cuda);
}
