#pragma once
// Escaping for the XML-like formats (JUnit, HTML): every piece of text a candidate or a suite
// controls (messages, ids, file names) passes through here.
#include <string>

namespace kbench {

// &, <, >, " and ' as entities; control characters XML 1.0 forbids become U+FFFD.
std::string escape_xml(const std::string& text);

}  // namespace kbench
