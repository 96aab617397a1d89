// Loads a suite with the installed library and prints its problem ids: headers from
// PREFIX/include/kbench, code from libkbench_core.a, found through find_package(kbench).
#include <cstdio>

#include "core/error.hpp"
#include "core/version.hpp"
#include "suite/suite.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const kbench::Suite suite = kbench::load_suite(argv[1]);
    std::printf("%s: %zu problems\n", suite.name.c_str(), suite.problems.size());
    for (const auto& problem : suite.problems) std::printf("%s\n", problem.id.c_str());
    std::printf("kbench %s\n", kbench::kVersion);  // the installed, generated version header
  } catch (const kbench::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return e.code();
  }
  return 0;
}
