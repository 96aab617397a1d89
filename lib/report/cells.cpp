#include "report/cells.hpp"

#include <fmt/format.h>

namespace kbench {

std::string flags_text(const JobResult& r) {
  const auto it = r.diagnostics.find("flags");
  if (it == r.diagnostics.end() || !it->is_array()) return "";
  std::string out;
  for (const auto& flag : *it) {
    if (!out.empty()) out += "; ";
    out += flag.is_string() ? flag.get<std::string>() : flag.dump();
  }
  return out;
}

std::string time_cell(const JobResult& r, const std::string& variant) {
  const auto it = r.timings.find(variant);
  if (it == r.timings.end()) return "-";
  const double ms = it->second.headline_ms();
  if (ms < 1) return fmt::format("{:.1f} us", ms * 1000);
  if (ms < 1000) return fmt::format("{:.3f} ms", ms);
  return fmt::format("{:.2f} s", ms / 1000);
}

std::string ratio(double x) {
  if (x >= 0.01 && x < 1000) return fmt::format("{:.2f}x", x);
  return fmt::format("{:.3g}x", x);
}

std::string speedup_cell(const JobResult& r, const std::string& baseline) {
  const auto it = r.speedups.find(baseline);
  if (it == r.speedups.end()) return "-";
  const auto& s = it->second;
  if (!s.ci) return ratio(s.value);
  auto bound = [](double x) { return x >= 0.01 ? fmt::format("{:.2f}", x) : fmt::format("{:.3g}", x); };
  return fmt::format("{} [{}-{}]", ratio(s.value), bound(s.ci->low), bound(s.ci->high));
}

std::string shorten(const std::string& text, std::size_t width) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= width) return line;
  return line.substr(0, width - 3) + "...";
}

}  // namespace kbench
