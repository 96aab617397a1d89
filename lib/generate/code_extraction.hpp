#pragma once
// Which code of a model's reply becomes the candidate file (rules: docs/endpoints.md#code-extraction).
//  1. `<think>...</think>` sections are dropped (reasoning served inside the content).
//  2. Fenced blocks (``` or ~~~, up to 3 spaces of indent) are found; an unclosed last fence runs
//     to the end of the reply (a reply cut at max_tokens).
//  3. Python blocks are those tagged python, py, python3 or untagged; other tags (cpp, cuda, ...)
//     are skipped: a CUDA candidate is still a Python file (load_inline) and must be in one.
//  4. The last Python block that defines `class ModelNew` wins; else the last Python block.
//  5. No fenced block: the whole reply, when it defines `class ModelNew` (an unfenced answer).
//  6. Otherwise there is no code: status no_code.
#include <optional>
#include <string>

namespace kbench {

struct ExtractedCode {
  std::optional<std::string> code;  // nullopt: no code (status no_code)
  int blocks = 0;                   // fenced blocks found, any language
  std::string rule;                 // which rule chose it, or why nothing was chosen
};

ExtractedCode extract_code(const std::string& reply);

}  // namespace kbench
