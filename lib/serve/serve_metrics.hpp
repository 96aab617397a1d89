#pragma once
// `GET /metrics`: the service's state in the Prometheus text exposition format (version 0.0.4),
// documented metric by metric in docs/serve.md#metrics. Counters only grow while the server
// runs; gauges are read at the scrape.
#include <cstddef>
#include <map>
#include <string>

#include "service/evaluator.hpp"

namespace kbench {

// What the HTTP layer itself counts.
struct HttpTally {
  std::map<int, std::size_t> responses_by_code;  // every response sent, by HTTP status
  std::size_t waiting = 0;                       // requests blocked in ?wait=1 now
  bool draining = false;
};

std::string metrics_text(const EvaluatorStats& stats, const HttpTally& http);

// A Prometheus label value: backslash, double quote and newline escaped.
std::string prometheus_label(const std::string& value);

}  // namespace kbench
