#include "report/svg_elements.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/markup.hpp"

namespace kbench::svg {

std::string open(double width, double height, const std::string& label) {
  return fmt::format(
      "<svg width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" "
      "aria-label=\"{2}\">\n<rect class=\"frame\" x=\"0\" y=\"0\" width=\"{0:.0f}\" "
      "height=\"{1:.0f}\"/>\n",
      width, height, escape_xml(label));
}

std::string text(double x, double y, const std::string& content, const char* anchor, const char* css) {
  return fmt::format("<text class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}</text>\n",
                     css, x, y, anchor, escape_xml(content));
}

std::string rect(const char* css, double x, double y, double w, double h, const std::string& tip) {
  return fmt::format(
      "<rect class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{}"
      "</title></rect>\n",
      css, x, y, std::max(w, 0.0), std::max(h, 0.0), escape_xml(tip));
}

std::string line(const char* css, double x1, double y1, double x2, double y2) {
  return fmt::format("<line class=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                     css, x1, y1, x2, y2);
}

std::string empty_chart(double width, const std::string& label, const std::string& why) {
  return open(width, 60, label) + text(width / 2, 35, why) + "</svg>\n";
}

}  // namespace kbench::svg
