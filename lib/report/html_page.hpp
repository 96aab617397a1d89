#pragma once
// The opening of kbench's self-contained HTML pages (the run report, the history trend): one
// stylesheet, inline, no script, no external font, so a page opens offline and as a CI artifact.
#include <string>

namespace kbench {

// "<!DOCTYPE html>...<body>\n" with `title` escaped; `extra_css` is appended to the stylesheet.
std::string html_page_head(const std::string& title, const std::string& extra_css = "");

}  // namespace kbench
