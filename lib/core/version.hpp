#pragma once
namespace kbench {
// Bumped by hand on release; CMake passes the same number to the project() call.
inline constexpr const char* kVersion = "0.1.0";
}  // namespace kbench
