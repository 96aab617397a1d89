// The workers' shared bytecode cache (cache/bytecode_cache.hpp): filled by the workers' Python
// into a fresh folder, skipped while its stamp holds, filled again when a directory on sys.path
// changes, and read by an interpreter that may not write bytecode, as a worker is. The first
// fill compiles the whole sys.path of the venv: about 15 s on the 2-core machine.
#include <stdlib.h>

#include <fstream>

#include "cache/bytecode_cache.hpp"
#include "catch.hpp"
#include "core/worker_python.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

// Where Python keeps the bytecode of `source` under the cache, asked of Python itself (the
// name carries its version tag), by an interpreter started as a worker is.
std::string cached_path(const fs::path& cache, const fs::path& source) {
  const auto out = test::run_command("env PYTHONDONTWRITEBYTECODE=1 PYTHONPYCACHEPREFIX=" + cache.string() + " " +
                                     python_executable() + " -c \"import importlib.util; print(importlib.util."
                                     "cache_from_source('" + source.string() + "'), end='')\"");
  REQUIRE(out.exit_code == 0);
  return out.output;
}

}  // namespace

TEST_CASE("the bytecode cache is filled once, again after a change, and read by a worker's interpreter") {
  test::TempDir dir;
  const fs::path cache = dir.path() / "pycache", packages = dir.path() / "packages";
  fs::create_directories(packages);
  std::ofstream(packages / "kb_mod_a.py") << "VALUE = 1\n";
  // On the interpreter's sys.path as the workers' PYTHONPATH would put it.
  ::setenv("PYTHONPATH", packages.c_str(), 1);

  const auto first = BytecodeCache::fill(cache, python_executable());
  INFO(first.message << test::read_text(cache / "fill.log"));
  REQUIRE(first.ok);
  CHECK(first.filled);
  const auto pyc_a = cached_path(cache, packages / "kb_mod_a.py");
  CHECK(pyc_a.rfind(cache.string(), 0) == 0);
  CHECK(fs::exists(pyc_a));
  // The standard library too: with a prefix set, Python looks for no other bytecode.
  const auto json_source = test::run_command(python_executable() + " -c \"import json; print(json.__file__, end='')\"");
  CHECK(fs::exists(cached_path(cache, json_source.output)));

  const auto again = BytecodeCache::fill(cache, python_executable());
  REQUIRE(again.ok);
  CHECK_FALSE(again.filled);  // the stamp still holds: nothing compiled
  CHECK(again.seconds < first.seconds);

  std::ofstream(packages / "kb_mod_b.py") << "VALUE = 2\n";  // the directory's mtime moves
  const auto changed = BytecodeCache::fill(cache, python_executable());
  REQUIRE(changed.ok);
  CHECK(changed.filled);
  CHECK(fs::exists(cached_path(cache, packages / "kb_mod_b.py")));

  // A worker's interpreter (no bytecode written) imports with the cached file as its bytecode,
  // and writes nothing beside the source.
  const auto imported = test::run_command("env PYTHONDONTWRITEBYTECODE=1 PYTHONPYCACHEPREFIX=" + cache.string() + " " +
                                          python_executable() + " -c \"import kb_mod_a, kb_mod_b; "
                                          "print(kb_mod_a.__cached__, kb_mod_a.VALUE + kb_mod_b.VALUE)\"");
  REQUIRE(imported.exit_code == 0);
  CHECK(imported.output.find(pyc_a + " 3") != std::string::npos);
  CHECK_FALSE(fs::exists(packages / "__pycache__"));
}

TEST_CASE("a fill with an interpreter that cannot start says so") {
  test::TempDir dir;
  const auto fill = BytecodeCache::fill(dir.path() / "pycache", (dir.path() / "no-python").string());
  CHECK_FALSE(fill.ok);
  CHECK(fill.message.find("no-python") != std::string::npos);
}
