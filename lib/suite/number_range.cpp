#include "suite/number_range.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "core/error.hpp"

namespace kbench {
namespace {

constexpr double kWeek_s = 7 * 24 * 3600.0;
constexpr double kDay_s = 24 * 3600.0;

NumberRange open_min(double min, double max) { return {min, max, false, true, false}; }
NumberRange closed(double min, double max) { return {min, max, true, true, false}; }
NumberRange integers(double min, double max) { return {min, max, true, true, true}; }

const std::map<std::string, NumberRange, std::less<>>& table() {
  static const std::map<std::string, NumberRange, std::less<>> ranges = {
      // Suite keys (docs/suite-format.md).
      {"timeout_s", open_min(0, kWeek_s)},
      {"compile_timeout_s", open_min(0, kWeek_s)},
      {"run_timeout_s", open_min(0, kWeek_s)},
      {"build_timeout_s", open_min(0, kDay_s)},  // each extension build (docs/extensions.md)
      {"memory_limit_gb", open_min(0, 65536)},
      {"output_cap_mb", open_min(0, 4096)},
      {"file_size_limit_gb", open_min(0, 16384)},
      {"atol", closed(0, 1e6)},
      {"rtol", closed(0, 1e6)},
      {"seeds", integers(1, 10000)},
      {"level", integers(1, 1000)},
      {"schema_version", integers(1, 1000)},
      {"min_custom_kernel_share", closed(0, 1)},
      {"flag_speedup_above", {1, 1e9, false, true, false}},
      {"target_ci", {0, 1, false, false, false}},
      {"min_time_s", closed(0, kDay_s)},
      {"max_time_s", open_min(0, kDay_s)},
      {"warmup_time_s", closed(0, kDay_s)},
      {"min_samples", integers(1, 1e8)},
      {"max_samples", integers(1, 1e8)},
      {"warmup", integers(0, 1e8)},
      {"samples_per_round", integers(1, 1e6)},
      {"input_sets", integers(1, 1024)},
      {"size constant", closed(-1e15, 1e15)},
      // The suite's `generate:` block (docs/suite-format.md#generate).
      {"samples", integers(1, 1000)},
      {"turns", integers(1, 20)},
      {"temperature", closed(0, 2)},
      {"top_p", open_min(0, 1)},
      {"max_tokens", integers(1, 1e7)},
      {"max_completion_tokens", integers(1, 1e7)},
      {"concurrency", integers(1, 256)},
      {"connect_timeout_s", open_min(0, 3600)},
      {"request_timeout_s", open_min(0, kDay_s)},
      {"max_retries", integers(0, 100)},
      // Command line (docs/cli.md).
      {"--timeout", open_min(0, kWeek_s)},
      {"--max-time", open_min(0, kDay_s)},
      {"--max-wall", open_min(0, kWeek_s)},
      {"--max-wall-grace", closed(0, kDay_s)},
      {"--device-memory-gb", open_min(0, 65536)},
      {"--keep-reference-drift", open_min(0, 1)},
      {"--target-ci", closed(1e-5, 0.5)},
      {"--fail-on-regression", closed(0, 1e6)},
      {"--request-timeout", open_min(0, kDay_s)},  // kbench serve: the longest wait=1 blocks
      {"--keep-results-s", open_min(0, 365 * kDay_s)},  // kbench serve: an unread result's age
      // Results files (docs/results-format.md): a sample of days is a broken file.
      {"samples_ms", closed(0, 1e9)},
      {"wall_s", closed(0, 1e9)},
      {"unix_s", closed(0, 1e11)},
      {"round", integers(0, 1e9)},
      {"sample count", integers(0, 1e9)},
      {"slot", integers(0, 1e6)},
      {"sample", integers(0, 1e6)},
      {"samples", integers(1, 1e6)},
      {"turn", integers(1, 1e6)},
      {"choices_in_request", integers(1, 1e6)},
      {"cost_usd", closed(0, 1e9)},
  };
  return ranges;
}

}  // namespace

std::string NumberRange::str() const {
  return fmt::format("{} in {}{}, {}{}", integer ? "an integer" : "a number", min_inclusive ? '[' : '(',
                     min, max, max_inclusive ? ']' : ')');
}

const NumberRange& number_range(std::string_view name) {
  const auto it = table().find(name);
  if (it == table().end()) throw std::logic_error(fmt::format("no documented range for '{}'", name));
  return it->second;
}

std::string number_range_problem(double value, const NumberRange& range) {
  if (std::isnan(value)) return fmt::format("is not a number (NaN); it must be {}", range.str());
  if (std::isinf(value)) return fmt::format("is infinite; it must be {}", range.str());
  const bool above_min = range.min_inclusive ? value >= range.min : value > range.min;
  const bool below_max = range.max_inclusive ? value <= range.max : value < range.max;
  if (range.integer && value != std::floor(value))
    return fmt::format("must be {}, got {}", range.str(), value);
  if (!above_min || !below_max) return fmt::format("must be {}, got {}", range.str(), value);
  return "";
}

double check_number(double value, std::string_view name, std::string_view where) {
  const auto problem = number_range_problem(value, number_range(name));
  if (!problem.empty()) throw InputError(fmt::format("{}`{}` {}", where, name, problem));
  return value;
}

}  // namespace kbench
