#include "report/progress_line.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kbench {

std::string format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
}

std::optional<double> estimate_remaining_s(std::size_t finished, std::size_t remaining, double elapsed_s) {
  if (finished == 0) return std::nullopt;
  // Wall time per finished job already includes the slots' concurrency.
  return elapsed_s / double(finished) * double(remaining);
}

ProgressTracker::ProgressTracker(std::size_t total, std::size_t already_done)
    : total_(total), already_done_(already_done) {}

void ProgressTracker::started(std::size_t index, const std::string& label) { running_[index] = label; }

void ProgressTracker::finished(std::size_t index, bool failed) {
  running_.erase(index);
  ++finished_;
  if (failed) ++failed_;
}

std::string ProgressTracker::line(double elapsed_s, std::size_t width) const {
  const int digits = int(std::to_string(total_).size());
  std::string out = fmt::format("[{:>{}}/{}]", done(), digits, total_);
  if (failed_) out += fmt::format(" {} failed ·", failed_);
  const auto eta = estimate_remaining_s(finished_, total_ - std::min(total_, done()), elapsed_s);
  out += " ETA " + (eta ? format_duration(*eta) : std::string("--"));
  if (requests_in_flight_ || generation_tokens_)
    out += fmt::format(" · asking the model: {} request{} ({} tokens so far)", requests_in_flight_,
                       requests_in_flight_ == 1 ? "" : "s", generation_tokens_);
  if (!running_.empty()) {
    out += " · running: ";
    bool first = true;
    for (const auto& [index, label] : running_) {
      out += (first ? "" : ", ") + label;
      first = false;
    }
  }
  // Cut by characters, not bytes: "·" is two bytes of UTF-8.
  std::size_t chars = 0, cut = out.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if ((static_cast<unsigned char>(out[i]) & 0xC0) == 0x80) continue;
    if (chars == width) {
      cut = i;
      break;
    }
    ++chars;
  }
  if (cut < out.size()) {
    // Leave room for the ellipsis within the width.
    std::size_t keep = cut;
    do --keep; while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80);
    out = out.substr(0, keep) + "…";
  }
  return out;
}

}  // namespace kbench
