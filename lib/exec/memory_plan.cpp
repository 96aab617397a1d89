#include "exec/memory_plan.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace kbench {
namespace {

long long usable(long long budget) {
  if (budget <= 0) return std::numeric_limits<long long>::max() / 4;
  return static_cast<long long>(kPlannedShareOfBudget * double(budget));
}

}  // namespace

// The model (docs/memory.md#the-plan):
//   device, resident: fixed + the first trial (inputs, weights)
//   device, transient: one clone of the first set per timed variant, the peak of one call,
//     the outputs of the call being checked
//   device, per extra timing set: its pristine inputs + one clone per timed variant
//   device, per extra trial kept there: its inputs + weights
//   host: the first trial's expected outputs (comparisons copy device outputs over in chunks)
//     and, on the CPU, the device's minimum as well,
//     one expected output per extra trial and timing set, inputs + weights per parked trial;
//     on the CPU, fresh values' host copies: timed variants x input per timing set, weights once.
// Correctness first: extra trials are placed (device, else host, else dropped) before extra
// timing sets are added.
MemoryPlan plan_memory(const MemoryPlanRequest& r) {
  const MemoryFootprint& f = r.footprint;
  const int variants = std::max(1, r.timed_variants);
  const long long per_set = (variants + 1) * f.input_bytes;
  const long long per_trial = f.input_bytes + f.weight_bytes;
  const long long call = std::max(f.call_peak_bytes, f.input_bytes + f.output_bytes);
  MemoryPlan plan;
  plan.budget_bytes = r.budget_bytes;
  plan.host_budget_bytes = r.host_budget_bytes;
  plan.minimum_bytes = r.fixed_bytes + f.input_bytes + f.weight_bytes + variants * f.input_bytes +
                       call + f.output_bytes;
  const long long device_room = usable(r.budget_bytes);
  const long long host_room = usable(r.host_budget_bytes);
  plan.fits = plan.minimum_bytes <= device_room;
  long long device = plan.minimum_bytes;
  // On the CPU fresh values keep a host copy of every buffer's values per timed variant, and the
  // reference's weights once (worker/fresh_inputs.hpp); on a GPU they are rebuilt from the seed.
  const long long fresh_per_set = r.device_is_host ? variants * f.input_bytes : 0;
  // On the CPU the device's minimum is host memory too.
  long long host = f.output_bytes + (r.device_is_host ? plan.minimum_bytes + fresh_per_set + f.weight_bytes : 0);
  // On the CPU both counts are the same memory: a trial "on the device" costs the host too.
  auto fits = [&](long long on_device, long long on_host) {
    if (r.device_is_host) return host + on_device + on_host <= host_room;
    return device + on_device <= device_room && host + on_host <= host_room;
  };
  auto take = [&](long long on_device, long long on_host) {
    if (r.device_is_host) host += on_device + on_host;
    else device += on_device, host += on_host;
  };
  for (int t = 0; t < r.extra_trials; ++t) {
    if (plan.trials_on_host == 0 && fits(per_trial, f.output_bytes)) {
      ++plan.trials_on_device;
      take(per_trial, f.output_bytes);
    } else if (fits(0, f.output_bytes + per_trial)) {
      ++plan.trials_on_host;
      take(0, f.output_bytes + per_trial);
    } else {
      ++plan.trials_dropped;
    }
  }
  for (const int wanted = std::max(1, r.timing_sets_wanted);
       plan.timing_sets < wanted && fits(per_set, f.output_bytes + fresh_per_set);) {
    ++plan.timing_sets;
    take(per_set, f.output_bytes + fresh_per_set);
  }
  plan.planned_bytes = r.device_is_host ? host : device;
  plan.host_planned_bytes = host;
  return plan;
}

// The judge holds no timing set, no clones per variant and no extra trial: only what one
// reference call on a call's fresh values needs (the expected outputs go to the host at once).
MemoryPlan plan_judge_memory(const MemoryFootprint& f, long long budget_bytes) {
  MemoryPlan plan;
  plan.budget_bytes = budget_bytes;
  plan.timing_sets = 0;
  plan.minimum_bytes = f.weight_bytes + 2 * f.input_bytes + std::max(f.call_peak_bytes, f.input_bytes + f.output_bytes);
  plan.planned_bytes = plan.minimum_bytes;
  plan.fits = plan.minimum_bytes <= usable(budget_bytes);
  return plan;
}

nlohmann::json to_json(const MemoryFootprint& f) {
  return {{"input_bytes", f.input_bytes},
          {"output_bytes", f.output_bytes},
          {"weight_bytes", f.weight_bytes},
          {"call_peak_bytes", f.call_peak_bytes}};
}

MemoryFootprint memory_footprint_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw std::invalid_argument("the footprint must be an object");
  MemoryFootprint f;
  for (auto [key, field] : {std::pair{"input_bytes", &f.input_bytes}, std::pair{"output_bytes", &f.output_bytes},
                            std::pair{"weight_bytes", &f.weight_bytes}, std::pair{"call_peak_bytes", &f.call_peak_bytes}}) {
    *field = json.at(key).get<long long>();
    if (*field < 0) throw std::invalid_argument(std::string("footprint ") + key + " must not be negative");
  }
  return f;
}

nlohmann::json to_json(const MemoryPlan& p) {
  return {{"budget_bytes", p.budget_bytes},
          {"minimum_bytes", p.minimum_bytes},
          {"planned_bytes", p.planned_bytes},
          {"host_budget_bytes", p.host_budget_bytes},
          {"host_planned_bytes", p.host_planned_bytes},
          {"fits", p.fits},
          {"timing_sets", p.timing_sets},
          {"trials_on_device", p.trials_on_device},
          {"trials_on_host", p.trials_on_host},
          {"trials_dropped", p.trials_dropped}};
}

}  // namespace kbench
