// The memory plan (exec/memory_plan.hpp) with given footprints: what a worker keeps on the
// device for small and full-size problems, and when a problem does not fit its grant at all.
#include "catch.hpp"

#include <string>
#include "exec/memory_plan.hpp"
#include "model/memory_usage.hpp"

using namespace kbench;

namespace {

constexpr long long GiB = 1LL << 30;
constexpr long long MiB = 1LL << 20;

MemoryPlanRequest request(long long input, long long output, long long budget) {
  MemoryPlanRequest r;
  r.footprint.input_bytes = input;
  r.footprint.output_bytes = output;
  r.footprint.call_peak_bytes = input + output;
  r.budget_bytes = budget;
  r.fixed_bytes = 256 * MiB;
  r.extra_trials = 7;  // 4 more seeds, alt distribution, alt shape, post timing
  r.timing_sets_wanted = 4;
  r.timed_variants = 2;
  return r;
}

}  // namespace

TEST_CASE("a small problem keeps everything on the device") {
  const auto plan = plan_memory(request(4 * MiB, 4 * MiB, 70 * GiB));
  CHECK(plan.fits);
  CHECK(plan.timing_sets == 4);
  CHECK(plan.trials_on_device == 7);
  CHECK(plan.planned_bytes < 70 * GiB);
}

TEST_CASE("level-1 ReLU at full size (6 GiB in, 6 GiB out) on half an H200") {
  const long long relu = 4096LL * 393216 * 4;
  auto r = request(relu, relu, 70 * GiB);
  auto plan = plan_memory(r);
  CHECK(plan.fits);
  // minimum: fixed + input + 2 clones + call (in + out) + out
  CHECK(plan.minimum_bytes == 256 * MiB + 6 * relu);
  CHECK(plan.trials_on_device == 3);  // 0.85 x 70 GiB holds three more inputs
  CHECK(plan.trials_on_host == 4);    // the rest wait on the host
  CHECK(plan.trials_dropped == 0);
  CHECK(plan.timing_sets == 1);       // each more set costs 3 inputs on the device
  CHECK(plan.planned_bytes <= static_cast<long long>(kPlannedShareOfBudget * double(70 * GiB)));
  // With a 28 GiB host budget the expected outputs decide: two more trials (6 + 2 x 6 GiB).
  r.host_budget_bytes = 28 * GiB;
  plan = plan_memory(r);
  CHECK(plan.trials_on_device == 2);
  CHECK(plan.trials_on_host == 0);
  CHECK(plan.trials_dropped == 5);
  CHECK(plan.host_planned_bytes <= static_cast<long long>(kPlannedShareOfBudget * double(28 * GiB)));
}

TEST_CASE("the plan never goes above its usable budgets") {
  for (long long budget : {20 * GiB, 40 * GiB, 80 * GiB, 140 * GiB}) {
    for (long long host : {0LL, 8 * GiB, 30 * GiB}) {
      auto r = request(2 * GiB, 1 * GiB, budget);
      r.host_budget_bytes = host;
      const auto plan = plan_memory(r);
      INFO("budget " << budget << " host " << host);
      CHECK(plan.fits);
      CHECK(plan.planned_bytes <= static_cast<long long>(kPlannedShareOfBudget * double(budget)));
      if (host > 0) CHECK(plan.host_planned_bytes <= static_cast<long long>(kPlannedShareOfBudget * double(host)));
      CHECK(plan.trials_on_device + plan.trials_on_host + plan.trials_dropped == 7);
    }
  }
  const auto small = plan_memory(request(2 * GiB, 1 * GiB, 20 * GiB));
  CHECK(small.trials_on_device == 3);
  CHECK(small.trials_on_host == 4);
  CHECK(small.timing_sets == 1);
  const auto large = plan_memory(request(2 * GiB, 1 * GiB, 140 * GiB));
  CHECK(large.trials_on_device == 7);
  CHECK(large.timing_sets == 4);
}

TEST_CASE("on the CPU the device is the host: one budget for both") {
  auto r = request(100 * MiB, 100 * MiB, 0);
  r.fixed_bytes = 0;
  r.device_is_host = true;
  // usable 1305 MiB; from the start 900 MiB (minimum 600 + one output + fresh values' host copies
  // of the first set's inputs, one per timed variant: 2 x 100), 200 MiB per trial
  r.host_budget_bytes = 1536 * MiB;
  const auto plan = plan_memory(r);
  CHECK(plan.fits);
  CHECK(plan.minimum_bytes == 600 * MiB);
  CHECK(plan.host_planned_bytes == 1300 * MiB);
  CHECK(plan.trials_on_device == 2);
  CHECK(plan.trials_on_host == 0);
  CHECK(plan.trials_dropped == 5);
  CHECK(plan.timing_sets == 1);
}

TEST_CASE("on the CPU each timing set adds its fresh values' host copies; on a GPU it does not") {
  // 10 MiB in and out, 2 timed variants, no extra trials, room for everything wanted.
  auto cpu = request(10 * MiB, 10 * MiB, 0);
  cpu.fixed_bytes = 0;
  cpu.extra_trials = 0;
  cpu.device_is_host = true;
  cpu.footprint.weight_bytes = 5 * MiB;
  cpu.host_budget_bytes = 4 * GiB;
  const auto on_cpu = plan_memory(cpu);
  REQUIRE(on_cpu.timing_sets == 4);
  // minimum 0 + 10 + 5 + 20 + 20 + 10 = 65; first set: output 10 + copies 20 + weights 5;
  // each of 3 more sets: (2 + 1) x 10 + output 10 + copies 20
  CHECK(on_cpu.host_planned_bytes == (65 + 35 + 3 * 60) * MiB);

  auto gpu = cpu;
  gpu.device_is_host = false;
  gpu.budget_bytes = 4 * GiB;
  const auto on_gpu = plan_memory(gpu);
  REQUIRE(on_gpu.timing_sets == 4);
  CHECK(on_gpu.host_planned_bytes == 4 * 10 * MiB);  // expected outputs only
}

TEST_CASE("a problem whose one call does not fit its grant says so") {
  const auto plan = plan_memory(request(20 * GiB, 20 * GiB, 70 * GiB));
  CHECK_FALSE(plan.fits);
  CHECK(plan.minimum_bytes > 70 * GiB);
  CHECK(plan.timing_sets == 1);
  CHECK(plan.trials_on_device == 0);
}

TEST_CASE("no budget: everything wanted, nothing judged") {
  const auto plan = plan_memory(request(20 * GiB, 20 * GiB, 0));
  CHECK(plan.fits);
  CHECK(plan.timing_sets == 4);
  CHECK(plan.trials_on_device == 7);
}

TEST_CASE("weights count per trial kept on the device") {
  auto r = request(1 * GiB, 1 * GiB, 40 * GiB);
  r.footprint.weight_bytes = 8 * GiB;
  const auto plan = plan_memory(r);
  CHECK(plan.fits);
  // 0.85 x 40 GiB = 34 GiB; minimum 256 MiB + 1 + 8 + 2 + 2 + 1 = 14.25 GiB; 9 GiB per trial
  CHECK(plan.trials_on_device == 2);
  CHECK(plan.trials_on_host == 5);
  CHECK(plan.timing_sets == 1);
}

TEST_CASE("memory usage round-trips through its codec and refuses negative sizes") {
  MemoryUsage u;
  u.gpu_peak_allocated_bytes = 5 * GiB;
  u.gpu_peak_reserved_bytes = 6 * GiB;
  u.gpu_budget_bytes = 70 * GiB;
  u.host_peak_rss_bytes = 3 * GiB;
  u.plan = {{"plan", to_json(plan_memory(request(1 * GiB, 1 * GiB, 70 * GiB)))}};
  const MemoryUsage back = memory_usage_from_json(to_json(u));
  CHECK(back.gpu_peak_allocated_bytes == u.gpu_peak_allocated_bytes);
  CHECK(back.gpu_peak_reserved_bytes == u.gpu_peak_reserved_bytes);
  CHECK_FALSE(back.gpu_device_used_bytes);
  CHECK(back.gpu_budget_bytes == u.gpu_budget_bytes);
  CHECK(back.host_peak_rss_bytes == u.host_peak_rss_bytes);
  CHECK(back.plan == u.plan);
  auto bad = to_json(u);
  bad["gpu_peak_reserved_bytes"] = -1;
  // Catch2 v2 and v3 spell their matchers differently; the message is checked by hand.
  std::string message;
  try {
    memory_usage_from_json(bad);
  } catch (const std::exception& e) {
    message = e.what();
  }
  CHECK(message.find("gpu_peak_reserved_bytes") != std::string::npos);
}

TEST_CASE("the judge's plan: the first trial, one fresh set and one call, against the job's grant") {
  MemoryFootprint f;
  f.input_bytes = 6 * GiB;  // level-1 ReLU at full size
  f.output_bytes = 6 * GiB;
  f.weight_bytes = 0;
  f.call_peak_bytes = 6 * GiB;  // below input + output: the larger counts
  const MemoryPlan plan = plan_judge_memory(f, 70 * GiB);
  // 2 x 6 (the trial's inputs, a call's fresh set) + max(6, 6 + 6)
  CHECK(plan.minimum_bytes == 24 * GiB);
  CHECK(plan.planned_bytes == 24 * GiB);
  CHECK(plan.fits);
  // Less than the reference worker's own minimum for the same footprint (clones per variant,
  // the L2 buffer, the outputs under check): a grant its plan fitted fits the judge.
  CHECK(plan.minimum_bytes < plan_memory(request(6 * GiB, 6 * GiB, 70 * GiB)).minimum_bytes);
  // 0.85 x 28 GiB = 23.8 GiB: refused before anything is built; unbounded (the CPU) fits.
  CHECK_FALSE(plan_judge_memory(f, 28 * GiB).fits);
  CHECK(plan_judge_memory(f, 0).fits);
  f.call_peak_bytes = 20 * GiB;  // intermediates: the measured peak counts
  CHECK(plan_judge_memory(f, 0).minimum_bytes == 32 * GiB);
}

TEST_CASE("the footprint and the judge's memory round-trip through their codecs") {
  MemoryFootprint f{1 * GiB, 2 * GiB, 3 * GiB, 4 * GiB};
  const MemoryFootprint back = memory_footprint_from_json(to_json(f));
  CHECK(back.input_bytes == f.input_bytes);
  CHECK(back.output_bytes == f.output_bytes);
  CHECK(back.weight_bytes == f.weight_bytes);
  CHECK(back.call_peak_bytes == f.call_peak_bytes);
  auto negative = to_json(f);
  negative["weight_bytes"] = -1;
  CHECK_THROWS(memory_footprint_from_json(negative));
  CHECK_THROWS(memory_footprint_from_json(nlohmann::json::object()));  // input_bytes missing

  MemoryUsage u;
  u.gpu_peak_reserved_bytes = 6 * GiB;
  CHECK_FALSE(to_json(u).contains("judge"));  // jobs without a judge read as before
  CHECK_FALSE(memory_usage_from_json(to_json(u)).judge);
  CHECK(u.job_gpu_peak_reserved_bytes() == 6 * GiB);
  u.judge = JudgeMemory{true, 24 * GiB, 20 * GiB, 25 * GiB, 2 * GiB};
  const MemoryUsage read = memory_usage_from_json(to_json(u));
  REQUIRE(read.judge);
  CHECK(read.judge->reference_calls);
  CHECK(read.judge->planned_bytes == 24 * GiB);
  CHECK(read.judge->gpu_peak_allocated_bytes == 20 * GiB);
  CHECK(read.judge->gpu_peak_reserved_bytes == 25 * GiB);
  CHECK(read.judge->host_peak_rss_bytes == 2 * GiB);
  // The ledger learns the larger of the job's processes: here the judge's.
  CHECK(read.job_gpu_peak_reserved_bytes() == 25 * GiB);
  u.gpu_peak_reserved_bytes.reset();
  CHECK(u.job_gpu_peak_reserved_bytes() == 25 * GiB);
  auto bad = to_json(u);
  bad["judge"]["planned_bytes"] = -5;
  CHECK_THROWS(memory_usage_from_json(bad));
}
