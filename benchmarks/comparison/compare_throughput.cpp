// Host output comparison (correctness/output_comparison.hpp): the one-pass loop against the
// chunked ATen path (KBENCH_COMPARISON=aten) over one fp32 output of N MiB, on torch's default
// intra-op threads and on one. The judge compares every trial's and witness call's full output
// on the host; on a shared 16-core host one 4096^2 matmul's comparisons took it 115 s.
// Usage: kbench-compare-bench [MiB]   (default 64: a 4096 x 4096 fp32 output)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "correctness/output_comparison.hpp"

namespace {

double seconds_of_compare(const at::Tensor& expected, const at::Tensor& actual, bool aten) {
  if (aten)
    setenv("KBENCH_COMPARISON", "aten", 1);
  else
    unsetenv("KBENCH_COMPARISON");
  const auto start = std::chrono::steady_clock::now();
  const auto result = kbench::compare_outputs({expected}, {actual}, kbench::Tolerance{1e-4, 1e-4});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok) throw std::runtime_error("the benchmark's outputs should match: " + result.reason);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 64;
  const int64_t n = int64_t(mib) << 18;  // fp32 elements
  const at::Tensor expected = at::randn({n});
  const at::Tensor actual = expected + at::randn({n}) * 1e-6;
  const int threads = at::get_num_threads();
  fmt::print("host comparison of one fp32 output of {} MiB ({} elements)\n", mib, n);
  fmt::print("{:<34} {:>9} {:>10}\n", "what", "seconds", "MB/s");
  for (int t : {threads, 1}) {
    at::set_num_threads(t);
    for (bool aten : {false, true}) {
      (void)seconds_of_compare(expected, actual, aten);  // warm: pages touched, pools started
      const double s = seconds_of_compare(expected, actual, aten);
      fmt::print("{:<34} {:>9.3f} {:>10.0f}\n",
                 fmt::format("{}, {} thread{}", aten ? "chunked ATen" : "one pass", t, t == 1 ? "" : "s"), s,
                 2 * mib * 1.048576 / s);
    }
  }
  return 0;
}
