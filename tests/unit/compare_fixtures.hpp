#pragma once
// Reports with many noisy rounds, for compare's statistical tests.
#include <random>

#include "sample_report.hpp"

namespace kbench::test {

// `rounds` rounds of one sample each around `ms`, with +-2% noise from `seed`.
inline std::vector<double> noisy(double ms, int rounds, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.02, 0.02);
  std::vector<double> out;
  for (int i = 0; i < rounds; ++i) out.push_back(ms * (1 + noise(rng)));
  return out;
}

// The sample report's shape (p1, p2 x2, p3), with 60 noisy rounds per timed variant.
inline RunReport noisy_report(unsigned seed, double candidate_scale = 1.0) {
  RunReport report = sample_report();
  auto timed = [&](const std::string& problem, const std::string& candidate, double cand, double eager,
                   double inductor, unsigned s) {
    return sample_result(problem, candidate, Status::ok, noisy(cand * candidate_scale, 60, s),
                         noisy(eager, 60, s + 1), noisy(inductor, 60, s + 2));
  };
  report.results[0] = timed("p1", "p1_triton.py", 1.0, 2.0, 1.5, seed);
  report.results[1] = timed("p2", "p2_triton.py", 4.0, 2.0, 2.0, seed + 10);
  return report;
}

}  // namespace kbench::test
