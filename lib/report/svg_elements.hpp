#pragma once
// The few SVG elements kbench's inline charts are drawn with (the run report's html_charts and
// the history trend's charts), each with its text escaped here.
#include <string>

namespace kbench::svg {

// <svg> with a framing <rect class="frame">, so every chart holds at least one rect.
std::string open(double width, double height, const std::string& label);
std::string text(double x, double y, const std::string& content, const char* anchor = "middle",
                 const char* css = "label");
// A rect with a hover tooltip (<title>); negative sizes are drawn as 0.
std::string rect(const char* css, double x, double y, double w, double h, const std::string& tip);
std::string line(const char* css, double x1, double y1, double x2, double y2);
// A chart frame holding one line of text saying why it is empty.
std::string empty_chart(double width, const std::string& label, const std::string& why);

}  // namespace kbench::svg
