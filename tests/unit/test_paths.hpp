#pragma once
// Paths the tests need, fixed by CMake at configure time.
#include <filesystem>

namespace kbench::test {
inline const std::filesystem::path kSourceDir = KBENCH_SOURCE_DIR;
inline const std::filesystem::path kDataDir = kSourceDir / "tests" / "data";
inline const std::filesystem::path kGoldenDir = kSourceDir / "tests" / "golden";
inline const std::filesystem::path kKbench = KBENCH_BINARY;
}  // namespace kbench::test
