#pragma once
// The one version number is CMake's project(VERSION) (CMakeLists.txt); the wheel reads the same
// line (pyproject.toml), and lib/CMakeLists.txt generates kbench_version.hpp from it.
#include "kbench_version.hpp"

namespace kbench {
inline constexpr const char* kVersion = KBENCH_VERSION_STRING;
}  // namespace kbench
