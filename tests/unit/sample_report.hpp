#pragma once
// A fixed RunReport with hand-picked numbers, shared by the metric and report-format tests.
#include "report/run_report.hpp"

namespace kbench::test {

inline JobResult sample_result(const std::string& problem, const std::string& candidate,
                               Status status, std::vector<double> candidate_ms,
                               std::vector<double> eager_ms, std::vector<double> inductor_ms) {
  JobResult r;
  r.job.problem_id = problem;
  r.job.problem_file = "/suite/problems/" + problem + ".py";
  r.job.candidate = candidate;
  r.job.candidate_file = "/suite/solutions/" + candidate;
  r.job.level = 1;
  r.job.tags = {"t"};
  r.job.device = cpu_device();
  r.status = status;
  r.wall_s = 1.5;
  auto add = [&](const char* name, std::vector<double> samples) {
    if (samples.empty()) return;
    Measurement m;
    m.timer = "host_clock";
    m.mode = "cold";
    m.samples_ms = samples;
    m.rounds.assign(samples.size(), 0);
    for (std::size_t i = 0; i < samples.size(); ++i) m.rounds[i] = int(i);  // one sample a round
    r.timings[name] = m;
  };
  add("candidate", candidate_ms);
  add("eager", eager_ms);
  add("inductor", inductor_ms);
  if (!r.timings.empty()) r.protocol = {{"mode", "cold"}, {"converged", true}, {"rounds", 3}};
  derive_statistics(r);
  if (status == Status::mismatch) r.message = "seed 1000: output 0: 3 of 4 elements differ";
  if (status == Status::crashed)
    r.message = "worker killed by signal 11 (Segmentation fault); the worker delivered no result";
  return r;
}

// p1: one correct candidate, 2x faster than eager, 1.5x faster than Inductor; flagged.
// p2: one correct (0.5x vs Inductor) and one mismatch.
// p3: crashed.
inline RunReport sample_report() {
  RunReport report;
  report.suite_name = "sample";
  report.suite_file = "/suite/sample.yaml";
  report.device = cpu_device();
  report.run.command_line = {"kbench", "run", "/suite/sample.yaml", "-o", "results.json"};
  report.run.kbench_version = "0.1.0";
  report.run.git_commit = "0123456789abcdef0123456789abcdef01234567";
  report.run.started_at = "2026-11-30T12:00:00Z";
  report.run.finished_at = "2026-11-30T12:00:09Z";
  report.environment = {{"device_name", "CPU"}, {"torch", "2.11.0"}, {"triton", "3.6.0"},
                        {"cuda", ""}, {"driver", ""}, {"kbench_version", "0.1.0"}};
  report.results = {
      sample_result("p1", "p1_triton.py", Status::ok, {1.0, 1.0, 1.0}, {2.0, 2.0, 2.0}, {1.5, 1.5, 1.5}),
      sample_result("p2", "p2_triton.py", Status::ok, {4.0, 4.0, 4.0}, {2.0, 2.0, 2.0}, {2.0, 2.0, 2.0}),
      sample_result("p2", "p2_wrong.py", Status::mismatch, {}, {}, {}),
      sample_result("p3", "p3_triton.py", Status::crashed, {}, {}, {}),
  };
  // Where p1 ran (results written before `schedule` existed have none, like the others here).
  report.results[0].schedule = ScheduleInfo{1, cpu_device(), 1764504000.25, 1764504001.75};
  // Every report format must show flags (uncertain integrity findings) next to the result.
  report.results[0].diagnostics["flags"] = {"degenerate_reference: the reference outputs are identical on every seed"};
  // p2 is marked degenerate by its suite: every format says so next to both of its results.
  report.degenerate_problems["p2"] = "zeros pass it at the suite's tolerance";
  report.planned_jobs = 4;
  return report;
}

}  // namespace kbench::test
