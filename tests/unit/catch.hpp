#pragma once
// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) behind one include.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
// v2 also declares a global Approx; tests may use either spelling.
using Catch::Approx;
#else
#include <catch2/catch.hpp>
namespace Catch {
using Detail::Approx;
}
#endif
