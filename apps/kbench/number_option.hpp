#pragma once
// A CLI11 check from the documented range of a number (suite/number_range.hpp): NaN, infinities
// and absurd values are refused with the option's name and its range, the same words as a suite
// key gets (CLI11's own PositiveNumber lets `nan` through and prints DBL_MAX in full).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "suite/number_range.hpp"

namespace kbench::cli {

inline CLI::Validator documented_range(const std::string& name) {
  return CLI::Validator(
      [name](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return fmt::format("must be {}, got '{}'", number_range(name).str(), text);
        return number_range_problem(value, number_range(name));
      },
      number_range(name).str().substr(number_range(name).str().find(" in ") + 4));
}

}  // namespace kbench::cli
