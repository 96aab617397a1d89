// The timing witness's bound (exec/timing_witness.hpp): honest samples and their noise pass,
// samples that claim much less than the controller's window allows are refused.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "catch.hpp"
#include "exec/timing_witness.hpp"
#include "exec/tree_schedule.hpp"

using namespace kbench;

TEST_CASE("honest samples are within the window, with noise and the window's own work") {
  const std::vector<double> samples_ms = {10.0, 10.5, 9.8, 11.0, 10.2};
  // 16 calls of ~10 ms: exactly as claimed, 2.5x slower (a cold, noisy window), with 50 ms of
  // input and output work the reference measured at 30 ms.
  CHECK(!witness_refusal(samples_ms, 16, 0.16, 0.0));
  CHECK(!witness_refusal(samples_ms, 16, 0.40, 0.0));
  CHECK(!witness_refusal(samples_ms, 16, 0.16 + 0.05, 0.03));
  // Tiny calls: the fixed margin (pipe, scheduler) dominates.
  CHECK(!witness_refusal({0.005}, 16, 0.04, 0.0));
  // Nothing claimed or no call: nothing to bound.
  CHECK(!witness_refusal({}, 16, 10.0, 0.0));
  CHECK(!witness_refusal(samples_ms, 0, 10.0, 0.0));
}

TEST_CASE("samples that claim far less than the window are refused, with the numbers") {
  // A call that takes 10 ms and claims 30 us: 16 calls take 0.16 s on the controller's clock.
  const auto refused = witness_refusal({0.03, 0.031, 0.029}, 16, 0.16, 0.001);
  REQUIRE(refused);
  CHECK(refused->find("16 witness calls on fresh inputs took 0.16 s") == 0);
  CHECK(refused->find("claimed median sample 0.03 ms") != std::string::npos);
  // Just beyond the factor: 3.5x the claim, with the margin spent.
  CHECK(witness_refusal({10.0}, 16, 3.5 * 0.16 + 0.05, 0.0));
  // The rule's factor and margin are the bound.
  CHECK(!witness_refusal({10.0}, 16, 0.2, 0.0, WitnessRule{1.25, 0.0}));
  CHECK(witness_refusal({10.0}, 16, 0.21, 0.0, WitnessRule{1.25, 0.0}));
}

TEST_CASE("on CUDA: the rest allowed 1.25x, a 0.15 s margin, more calls; the CPU's rule unchanged") {
  const WitnessRule cuda = WitnessRule::for_device(true), cpu = WitnessRule::for_device(false);
  CHECK(cuda.overhead_factor == 1.25);
  CHECK(cuda.margin_s == 0.15);
  CHECK(cpu.overhead_factor == 2);
  CHECK(cpu.margin_s == 0.05);
  // Figures of the H200, 2026-12-05. native_event_forgery_honest_speed: 4096^2 matmuls at honest
  // speed (2.68 ms) claiming 400x. With 16 calls (62.5 ms) and the rest measured step by step
  // (59 ms with its cold first set) it passed under either rule.
  const std::vector<double> claimed = {2.68 / 400};
  CHECK(!witness_refusal(claimed, 16, 0.0625, 0.059, cuda));
  // With 54 calls and their rest measured as the window runs it (67 ms), refused, barely.
  CHECK(witness_refusal(claimed, 54, 0.262, 0.067, cuda));
  // CUDA's rule now takes 128 of its calls (set rest ~2 ms step by step): 4.85 ms each in the
  // window against 1.24 ms of rest, refused by 0.27 s.
  CHECK(witness_call_count(0.00268, 0.002, cuda) == 128);
  CHECK(witness_refusal(claimed, 128, 128 * 0.00485, 128 * 0.00124, cuda));
  // Honest windows the 0.05 s margin refused there: 16 small calls on a host busy with nvcc
  // builds (l1_10_rmsnorm float4_shared, c07_axpby_clamp vec_template).
  CHECK(witness_refusal({0.1344}, 16, 0.167, 0.0461, WitnessRule{3, 0.05, 1.25}));
  CHECK(!witness_refusal({0.1344}, 16, 0.167, 0.0461, cuda));
  CHECK(!witness_refusal({0.1872}, 16, 0.1668, 0.0514, cuda));
  // The same matmuls honestly claimed pass with their rest 50% over the reference's measure.
  CHECK(!witness_refusal({2.68}, 128, 128 * (0.00268 + 0.0018), 128 * 0.00124, cuda));
}

TEST_CASE("on a loaded host the window's wait for a CPU is not counted against the calls") {
  // test_run_honest's cumsum on the 2-core CI machine at load ~8: 16 calls of a 0.69 ms median
  // took 0.112 s, refused against 0.083 s; most of it was waiting for a CPU.
  CHECK(witness_refusal({0.69}, 16, 0.112, 0.0));
  CHECK(!witness_refusal({0.69}, 16, 0.112, 0.0, {}, 0.06));
  const auto refused = witness_refusal({0.03}, 16, 0.30, 0.0, {}, 0.10);
  REQUIRE(refused);
  CHECK(refused->find("took 0.3 s on the controller's clock (0.1 s of it waiting for a CPU other work held)") !=
        std::string::npos);
}

TEST_CASE("the host's wait is what the tree's own CPU work cannot explain") {
  TreeSchedule start{{10, 11}, 1.0, 2.0, true};
  // One thread computing 30 ms of a 112 ms window, 80 ms waiting runnable: other work's.
  TreeSchedule end{{10, 11}, 1.030, 2.080, true};
  CHECK(host_wait_s(start, end, 0.112) == Approx(0.080));
  // The tree's own threads computing in turn (or in parallel) make each other wait: the credit is
  // at most the window less what they computed. native_clock_forgery's 16 x 9 ms of real work
  // in a 0.3 s window stays at least 0.144 s, far over its 23 us claims.
  end = {{10, 11}, 1.144, 2.250, true};
  CHECK(host_wait_s(start, end, 0.30) == Approx(0.156));
  CHECK(witness_refusal({0.023}, 16, 0.30, 0.0, {}, host_wait_s(start, end, 0.30)));
  end = {{10, 11}, 1.400, 2.300, true};  // busier than the window: nothing owed
  CHECK(host_wait_s(start, end, 0.30) == 0);
  // A thread that came or went in the window: its CPU is not in the sums, so no credit.
  end = {{10, 11, 12}, 1.030, 2.080, true};
  CHECK(host_wait_s(start, end, 0.112) == 0);
  end = {{10}, 1.030, 2.080, true};
  CHECK(host_wait_s(start, end, 0.112) == 0);
  end = {{10, 11}, 1.030, 2.080, false};
  CHECK(host_wait_s(start, end, 0.112) == 0);
}

TEST_CASE("the tree's schedule is read from /proc") {
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop) {
    }
  });
  const TreeSchedule start = sample_tree_schedule(getpid());
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() < until) {
  }
  const TreeSchedule end = sample_tree_schedule(getpid());
  stop = true;
  busy.join();
  REQUIRE(start.ok);
  REQUIRE(end.ok);
  CHECK(start.tasks.count(getpid()) == 1);
  CHECK(start.tasks.size() >= 2);
  CHECK(start.tasks == end.tasks);
  // Two threads busy for 0.1 s: at least one CPU's worth of it was theirs, whatever the load.
  CHECK(end.cpu_s - start.cpu_s > 0.05);
  CHECK(end.wait_s >= start.wait_s);
  CHECK(host_wait_s(start, end, 0.1) <= 0.1);
}

TEST_CASE("witness calls: many where the call is not small beside its set, 16 where it is, within 0.3 s") {
  // A 4096^2 matmul on the H200 (call 2.3 ms, set 1.4 ms): 0.15 s of calls.
  CHECK(witness_call_count(0.0023, 0.0014) == 66);
  // A CPU matmul whose calls dominate but would pass 0.3 s: as many as fit.
  CHECK(witness_call_count(0.040, 0.020) == 5);
  // Tiny calls that dominate: capped at 256.
  CHECK(witness_call_count(0.0002, 0.0001) == 256);
  // Building and hashing a set costs more than its call: more calls bound nothing on the CPU,
  // where the rule allows the rest twice.
  CHECK(witness_call_count(0.00015, 0.0004) == 16);
  CHECK(witness_call_count(0.00268, 0.0037) == 16);
  // On CUDA the rule allows the rest 1.25 times: a call over a quarter of it can be bounded, so
  // 0.4 s of calls as far as 0.6 s holds them (a 4096^2 matmul on the H200, 2026-12-05: call
  // 2.68 ms, set 3.7 ms measured step by step with its cold first set).
  const WitnessRule cuda = WitnessRule::for_device(true);
  CHECK(witness_call_count(0.00268, 0.0037, cuda) == 94);
  CHECK(witness_call_count(0.0002, 0.0009, cuda) == 16);
  CHECK(witness_call_count(0.0003, 0.0009, cuda) == 256);
  CHECK(witness_call_count(0.00085, 0.040) == 7);  // 1024^2 clamp_affine on the CPU: 0.3 s fit 7
  // Never fewer than 2, whatever the sets cost.
  CHECK(witness_call_count(0.5, 2.0) == 2);
  CHECK(witness_call_count(0.0, 0.0) == 16);
}

TEST_CASE("a job's second run takes twice the calls where calls are bounded, the same elsewhere") {
  const WitnessRule cuda = WitnessRule::for_device(true);
  const WitnessRule second = cuda.for_second_window();
  CHECK(second.calls_s == 2 * cuda.calls_s);
  CHECK(second.max_window_s == 2 * cuda.max_window_s);
  // The refusal's constants are the first run's: the bound is the same, on more calls.
  CHECK(second.factor == cuda.factor);
  CHECK(second.margin_s == cuda.margin_s);
  CHECK(second.overhead_factor == cuda.overhead_factor);
  // The H200's honest-speed forger (4096^2 matmuls, 2.68 ms; 2.4 ms of rest a set): 118 calls,
  // then 236, its excess over the margin doubled with them.
  CHECK(witness_call_count(2.68e-3, 2.4e-3, cuda) == 118);
  CHECK(witness_call_count(2.68e-3, 2.4e-3, second) == 236);
  // Calls short beside their rest bound nothing: 16 in both runs.
  CHECK(witness_call_count(0.1e-3, 3e-3, cuda) == 16);
  CHECK(witness_call_count(0.1e-3, 3e-3, second) == 16);
}
