#include "generate/code_extraction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <vector>

namespace kbench {
namespace {

struct Block {
  std::string language;  // lower-cased first word of the info string
  std::string code;
};

std::string without_thinking(std::string text) {
  for (;;) {
    const auto open = text.find("<think>");
    if (open == std::string::npos) break;
    const auto close = text.find("</think>", open);
    text.erase(open, close == std::string::npos ? std::string::npos : close + 8 - open);
  }
  return text;
}

// A fence line: up to 3 spaces, then 3+ backticks or tildes. Returns the fence, or "".
std::string fence_of(const std::string& line, std::string* info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return "";
  const char mark = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == mark) ++j;
  if (j - i < 3) return "";
  if (info) *info = line.substr(j);
  return line.substr(i, j - i);
}

std::vector<Block> fenced_blocks(const std::string& text) {
  std::vector<Block> blocks;
  std::istringstream in(text);
  std::string line, fence;
  Block current;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string info;
    const std::string found = fence_of(line, &info);
    if (!inside) {
      if (found.empty()) continue;
      inside = true;
      fence = found;
      std::istringstream words(info);
      std::string language;
      words >> language;
      std::transform(language.begin(), language.end(), language.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      current = Block{language, ""};
      continue;
    }
    // A closing fence: the same character, at least as long, nothing after it.
    const bool closes = !found.empty() && found[0] == fence[0] && found.size() >= fence.size() &&
                        info.find_first_not_of(" \t") == std::string::npos;
    if (closes) {
      blocks.push_back(std::move(current));
      inside = false;
      continue;
    }
    current.code += line + "\n";
  }
  if (inside) blocks.push_back(std::move(current));  // cut off at the end
  return blocks;
}

bool is_python(const std::string& language) {
  return language.empty() || language == "python" || language == "py" || language == "python3";
}

bool defines_model_new(const std::string& code) {
  static const std::regex pattern(R"((^|\n)class\s+ModelNew\b)");
  return std::regex_search(code, pattern);
}

}  // namespace

ExtractedCode extract_code(const std::string& reply) {
  const std::string text = without_thinking(reply);
  ExtractedCode out;
  const auto blocks = fenced_blocks(text);
  out.blocks = int(blocks.size());
  int last_python = -1, last_model_new = -1;
  for (int i = 0; i < int(blocks.size()); ++i) {
    if (!is_python(blocks[std::size_t(i)].language)) continue;
    if (blocks[std::size_t(i)].code.find_first_not_of(" \t\n") == std::string::npos) continue;
    last_python = i;
    if (defines_model_new(blocks[std::size_t(i)].code)) last_model_new = i;
  }
  if (last_model_new >= 0) {
    out.code = blocks[std::size_t(last_model_new)].code;
    out.rule = fmt::format("block {} of {}: the last Python block defining ModelNew", last_model_new + 1,
                           blocks.size());
  } else if (last_python >= 0) {
    out.code = blocks[std::size_t(last_python)].code;
    out.rule = fmt::format("block {} of {}: the last Python block (none defines ModelNew)",
                           last_python + 1, blocks.size());
  } else if (blocks.empty() && defines_model_new(text)) {
    out.code = text;
    out.rule = "no fenced block; the whole reply defines ModelNew";
  } else if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    out.rule = "the reply is empty";
  } else {
    out.rule = blocks.empty() ? "no fenced code block in the reply"
                              : fmt::format("{} fenced block(s), none of them Python", blocks.size());
  }
  return out;
}

}  // namespace kbench
