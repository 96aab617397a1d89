#include "generate/retry_policy.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kbench {

bool is_retryable_status(long status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

std::optional<double> parse_retry_after(const std::string& value, double now_unix_s) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (end && *end == '\0') {
    if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
    return seconds;
  }
  // IMF-fixdate, e.g. "Wed, 21 Oct 2026 07:28:00 GMT".
  tm when{};
  const char* parsed = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &when);
  if (!parsed || *parsed != '\0') return std::nullopt;
  const double at = double(timegm(&when));
  return std::max(0.0, at - now_unix_s);
}

double retry_delay_s(const RetryPolicy& policy, int retry, std::optional<double> retry_after,
                     double random01) {
  if (retry_after) return std::min(*retry_after, policy.max_retry_after_s);
  const double exponential =
      std::min(policy.max_backoff_s, policy.initial_backoff_s * std::pow(2.0, std::max(0, retry - 1)));
  // "Equal jitter": never less than half the backoff, so retries still spread out but do not
  // collapse to zero wait.
  return exponential * (0.5 + 0.5 * std::clamp(random01, 0.0, 1.0));
}

}  // namespace kbench
