#include "report/generation_totals.hpp"

#include <fmt/format.h>

#include <set>

namespace kbench {

GenerationTotals generation_totals(const std::vector<JobResult>& results) {
  GenerationTotals totals;
  std::set<std::string> seen;
  for (const auto& r : results) {
    if (!r.job.origin) continue;
    const auto& origin = *r.job.origin;
    ++totals.samples;
    if (!seen.insert(origin.request + (origin.from_cache ? "/cached" : "/sent")).second) continue;
    if (origin.from_cache) {
      ++totals.cached_requests;
      totals.cached_usage += origin.usage;
      continue;
    }
    ++totals.requests;
    totals.usage += origin.usage;
    if (origin.cost_usd) totals.cost_usd = totals.cost_usd.value_or(0) + *origin.cost_usd;
  }
  return totals;
}

nlohmann::json to_json(const GenerationTotals& totals) {
  return {{"candidates", totals.samples},
          {"requests", totals.requests},
          {"cached_requests", totals.cached_requests},
          {"usage", to_json(totals.usage)},
          {"cached_usage", to_json(totals.cached_usage)},
          {"cost_usd", totals.cost_usd ? nlohmann::json(*totals.cost_usd) : nlohmann::json(nullptr)}};
}

std::string generation_summary_line(const GenerationTotals& totals) {
  std::string line = fmt::format(
      "generation: {} samples; {} requests sent: {} prompt + {} completion tokens ({} reasoning, "
      "{} cached prompt)",
      totals.samples, totals.requests, totals.usage.prompt, totals.usage.completion,
      totals.usage.reasoning, totals.usage.cached);
  if (totals.cost_usd) line += fmt::format(", ${:.4f}", *totals.cost_usd);
  if (totals.cached_requests)
    line += fmt::format("; {} served from the cache ({} tokens, no request)", totals.cached_requests,
                        totals.cached_usage.total());
  return line;
}

}  // namespace kbench
