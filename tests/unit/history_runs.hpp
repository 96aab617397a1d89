#pragma once
// Synthetic nightly runs for the history tests, written through the project's results writer:
// three problems timed with +-1% night-to-night noise, and an optional slowdown of p2.
#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "report/results_json.hpp"
#include "sample_report.hpp"

namespace kbench::test {

inline RunReport nightly_run(int night, double p2_slowdown = 1.0) {
  RunReport report = sample_report();
  report.suite_name = "nightly";
  report.suite_file = "/suite/nightly.yaml";
  report.run.started_at = fmt::format("2026-11-{:02}T02:00:00Z", night + 1);
  report.results.clear();
  const std::pair<const char*, double> problems[] = {{"p1", 1.0}, {"p2", 2.0}, {"p3", 0.5}};
  for (std::size_t k = 0; k < std::size(problems); ++k) {
    const auto& [id, ms] = problems[k];
    const double noise = 1 + 0.005 * double((night * 7 + int(k) * 3) % 5 - 2);  // within +-1%
    const double t = ms * noise * (std::string(id) == "p2" ? p2_slowdown : 1.0);
    auto samples = [](double v) { return std::vector<double>{v * 0.995, v, v * 1.005, v, v * 1.002}; };
    report.results.push_back(sample_result(id, std::string(id) + "_triton.py", Status::ok, samples(t),
                                           samples(2 * ms), samples(1.5 * ms)));
  }
  report.results.push_back(sample_result("p3", "p3_wrong.py", Status::mismatch, {}, {}, {}));
  report.planned_jobs = report.results.size();
  return report;
}

// Nights 0..count-1 into DIR/night-NN.json; the last one with p2 slowed by `last_slowdown`.
inline std::vector<std::filesystem::path> write_nightly_runs(const std::filesystem::path& dir, int count,
                                                             double last_slowdown) {
  std::vector<std::filesystem::path> files;
  for (int night = 0; night < count; ++night) {
    files.push_back(dir / fmt::format("night-{:02}.json", night));
    write_results_json(nightly_run(night, night == count - 1 ? last_slowdown : 1.0), files.back());
  }
  return files;
}

}  // namespace kbench::test
