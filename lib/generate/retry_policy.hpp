#pragma once
// When a chat request is tried again, and after how long: exponential backoff with jitter, or
// the server's `retry-after` when it gives one (docs/endpoints.md#retries).
#include <optional>
#include <string>

namespace kbench {

struct RetryPolicy {
  int max_retries = 5;            // tries after the first
  double initial_backoff_s = 1;   // before the first retry; doubles each time
  double max_backoff_s = 60;
  double max_retry_after_s = 300; // a longer retry-after is capped to this
};

// 408 (timeout), 409 (conflict), 429 (rate limit) and every 5xx are transient.
bool is_retryable_status(long status);

// `retry-after`: delta-seconds or an HTTP date (RFC 9110 10.2.3); nullopt when unreadable.
// `now_unix_s` is the clock a date is compared to.
std::optional<double> parse_retry_after(const std::string& value, double now_unix_s);

// Seconds before retry number `retry` (1-based): `retry_after` when the server gave one (capped),
// else min(max, initial * 2^(retry-1)) scaled by a jitter factor in [0.5, 1.0] from `random01`.
double retry_delay_s(const RetryPolicy& policy, int retry, std::optional<double> retry_after,
                     double random01);

}  // namespace kbench
