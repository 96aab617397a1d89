#include "report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kbench {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_aligned_(std::move(right_aligned)) {
  if (right_aligned_.size() != header_.size())
    throw std::logic_error("TextTable: one alignment per column");
  for (const auto& h : header_) width_.push_back(h.size());
}

void TextTable::add_row(std::vector<std::string> row) {
  if (row.size() != header_.size()) throw std::logic_error("TextTable: a row of the wrong width");
  for (std::size_t c = 0; c < row.size(); ++c) width_[c] = std::max(width_[c], row[c].size());
  rows_.push_back(std::move(row));
}

std::string TextTable::line(const std::vector<std::string>& cells) const {
  std::string out;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    out += right_aligned_[c] ? fmt::format("{:>{}}", cells[c], width_[c])
                             : fmt::format("{:<{}}", cells[c], width_[c]);
    if (c + 1 < cells.size()) out += "  ";
  }
  // A text column last (or empty cells) would leave padding at the end of the line.
  out.erase(out.find_last_not_of(' ') + 1);
  return out + "\n";
}

std::string TextTable::header_lines() const {
  std::size_t total = 0;
  for (const auto w : width_) total += w + 2;
  return line(header_) + std::string(total - 2, '-') + "\n";
}

std::string TextTable::row_line(std::size_t i) const { return line(rows_.at(i)); }

std::string TextTable::str() const {
  std::string out = header_lines();
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace kbench
