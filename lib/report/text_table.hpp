#pragma once
// Plain-text tables for the terminal (the run table, `kbench compare`): columns padded to their
// widest cell and two spaces apart, under a header and a rule of dashes. One padder, so the
// tables line up the same way.
#include <cstddef>
#include <string>
#include <vector>

namespace kbench {

class TextTable {
 public:
  // `right_aligned[c]`: column c holds numbers (right-aligned); the others are text.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void add_row(std::vector<std::string> row);  // as many cells as the header
  // The header, the rule and every row, each line ending in "\n".
  [[nodiscard]] std::string str() const;
  // Pieces, for tables with notes printed under some rows.
  [[nodiscard]] std::string header_lines() const;  // header and rule
  [[nodiscard]] std::string row_line(std::size_t i) const;

 private:
  [[nodiscard]] std::string line(const std::vector<std::string>& cells) const;
  std::vector<std::string> header_;
  std::vector<bool> right_aligned_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> width_;
};

}  // namespace kbench
