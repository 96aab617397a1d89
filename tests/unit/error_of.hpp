#pragma once
// The message of the InputError an action throws, for asserting on error texts.
#include <string>

#include "core/error.hpp"

namespace kbench::test {

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace kbench::test
