#pragma once
// Token and cost totals of a run's generated candidates, derived from the results: several
// samples can share one request (n > 1), so each request is counted once.
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/token_usage.hpp"
#include "model/job_result.hpp"

namespace kbench {

struct GenerationTotals {
  std::size_t samples = 0;          // results with an origin
  std::size_t requests = 0;         // distinct requests sent during this run
  std::size_t cached_requests = 0;  // distinct requests served from the cache instead
  TokenUsage usage;                 // of the requests sent during this run
  TokenUsage cached_usage;          // what the cached replies cost when they were made
  std::optional<double> cost_usd;   // of the requests sent during this run; set when priced
};

GenerationTotals generation_totals(const std::vector<JobResult>& results);
nlohmann::json to_json(const GenerationTotals& totals);
// "tokens: 1234 prompt + 567 completion (89 reasoning, 0 cached) in 3 requests, 2 from cache; $0.0123"
std::string generation_summary_line(const GenerationTotals& totals);

}  // namespace kbench
