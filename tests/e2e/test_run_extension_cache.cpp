// End to end: the shared extension cache with real C++ CPU extensions (docs/extensions.md).
// Run 1, empty cache: a hostile candidate tries to poison the cache (tests/hostile/
// extension_cache_poison.py) and is refused; the honest candidate with the same key builds and
// is published. Run 2: the honest one is served from the cache without a build. Then the cached
// artefact is corrupted: run 3 detects it, does not load it, builds and replaces it.
// `kbench cache info/list/clear`. Three builds: ~3-6 min on a 2-core machine (label e2e).
// Without Landlock the cache is off, and the result says so (no build: ~30 s).
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "exec/sandbox.hpp"
#include "results_by_key.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

struct Run {
  nlohmann::json results;
  std::string output;
};

Run run_suite(const fs::path& cache_root, const fs::path& dir, const std::string& suite, const std::string& tag,
              const std::string& extra_env = "") {
  const auto results = dir / (tag + ".json");
  // run_kbench puts the binary first; the variable goes in front through env(1).
  const auto out = test::run_kbench("--version >/dev/null && env KBENCH_CACHE_DIR=" + cache_root.string() + " " +
                                    extra_env + " " + test::kKbench.string() + " run " +
                                    (test::kDataDir / "suites" / suite).string() + " --device cpu --jobs 1 --work-dir " +
                                    (dir / ("work-" + tag)).string() + " -o " + results.string());
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  return {nlohmann::json::parse(std::ifstream(results)), out.output};
}

// The file against docs/results.schema.json (tests/schema/validate_results.py, Python jsonschema).
int validate_against_schema(const fs::path& results) {
  const std::string command = std::string(KBENCH_TEST_PYTHON) + " " +
                              (test::kSourceDir / "tests/schema/validate_results.py").string() + " " +
                              (test::kSourceDir / "docs/results.schema.json").string() + " " + results.string() +
                              " >&2";
  return WEXITSTATUS(std::system(command.c_str()));
}

// The record of the candidate's own load_inline call.
nlohmann::json import_record(const nlohmann::json& result) {
  for (const auto& r : result["diagnostics"]["extension_build"])
    if (r.value("phase", "") == "import") return r;
  return nullptr;
}

nlohmann::json prebuild_record(const nlohmann::json& result) {
  for (const auto& r : result["diagnostics"]["extension_build"])
    if (r.value("phase", "") == "prebuild" && r.contains("key")) return r;
  return nullptr;
}

}  // namespace

TEST_CASE("builds are shared through the cache, and no candidate can poison it") {
  test::TempDir dir;
  const auto cache_root = dir.path() / "kbench-cache";
  const auto cache = cache_root / "extensions";
  const bool landlock = sandbox_support().landlock_abi > 0;

  const auto first = run_suite(cache_root, dir.path(), "extension_cache_first.yaml", "first");
  const auto by_key = test::results_by_key(first.results["results"]);
  const auto& hostile = by_key.at("add_one_poison/extension_cache_poison.py");
  const auto& honest = by_key.at("add_one_cpp/add_one_cpp_extension.py");
  INFO(hostile.dump(2));
  INFO(honest.dump(2));
  CHECK(honest["status"] == "ok");
  const auto built = prebuild_record(honest);
  REQUIRE(built.is_object());
  const std::string key = built["key"];
  CHECK(built["build_s"].get<double>() > 1.0);  // a real build
  CHECK(import_record(honest)["source"] == "prebuilt");
  CHECK(prebuild_record(hostile)["key"] == key);  // the same sources: the same key
  // A native candidate's job is blinded (reference worker, candidate, judge): its results file,
  // judge memory and all, is what docs/results.schema.json describes.
  CHECK(honest["memory"].contains("judge"));
  CHECK(validate_against_schema(dir.path() / "first.json") == 0);

  if (!landlock) {
    // Without Landlock other jobs could write into a job's builds: no sharing at all.
    CHECK(honest["diagnostics"]["extension_cache"]["off"].get<std::string>().find("Landlock") != std::string::npos);
    CHECK(!fs::exists(cache / key));
    return;
  }
  // Every write into the cache was denied, and the altered prebuild was not published.
  const std::string said = hostile["diagnostics"].value("stdout_tail", "");
  CHECK(said.find("POISON-SUCCEEDED replace the announced prebuild") != std::string::npos);
  CHECK(said.find("poison-denied rename an entry into the cache") != std::string::npos);
  CHECK(said.find("poison-denied symlink into the cache") != std::string::npos);
  CHECK(said.find("POISON-SUCCEEDED rename") == std::string::npos);
  CHECK(said.find("POISON-SUCCEEDED mkdir") == std::string::npos);
  CHECK(said.find("POISON-SUCCEEDED write a file into") == std::string::npos);
  CHECK(said.find("POISON-SUCCEEDED symlink") == std::string::npos);
  CHECK(hostile["diagnostics"]["extension_cache"][key].get<std::string>().rfind("refused", 0) == 0);
  CHECK(honest["diagnostics"]["extension_cache"][key] == "published");
  REQUIRE(fs::exists(cache / key / "manifest.json"));
  const auto manifest = nlohmann::json::parse(std::ifstream(cache / key / "manifest.json"));
  CHECK(manifest["sha256"] == built["sha256"]);  // the honest job's genuine build

  // Run 2: served from the cache, nothing built.
  const auto second = run_suite(cache_root, dir.path(), "extension_cache_again.yaml", "second");
  const auto& again = second.results["results"][0];
  INFO(again.dump(2));
  CHECK(again["status"] == "ok");
  CHECK(prebuild_record(again)["cached"] == true);
  CHECK(!prebuild_record(again).contains("build_s"));
  CHECK(import_record(again)["hit"] == true);
  CHECK(import_record(again)["source"] == "cache");
  bool reused = false;  // ModelNew.__init__ calls load_inline again: the loaded module is returned
  for (const auto& r : again["diagnostics"]["extension_build"]) reused = reused || r.value("source", "") == "loaded";
  CHECK(reused);
  CHECK(again["wall_s"].get<double>() < honest["wall_s"].get<double>());

  // A corrupted artefact is detected, not loaded, rebuilt and replaced.
  const auto so = cache / key / "kbench_add_one_cpu.so";
  fs::permissions(so, fs::perms::owner_all);
  std::ofstream(so, std::ios::app | std::ios::binary) << "corrupted";
  const auto third = run_suite(cache_root, dir.path(), "extension_cache_again.yaml", "third");
  const auto& rebuilt = third.results["results"][0];
  INFO(rebuilt.dump(2));
  CHECK(rebuilt["status"] == "ok");
  CHECK(prebuild_record(rebuilt)["cache"].get<std::string>().find("does not match") != std::string::npos);
  CHECK(prebuild_record(rebuilt)["build_s"].get<double>() > 1.0);
  CHECK(import_record(rebuilt)["source"] == "prebuilt");
  CHECK(rebuilt["diagnostics"]["extension_cache"][key] == "published");

  const auto list = test::run_kbench("cache list --dir " + cache.string());
  CHECK(list.output.find(key) != std::string::npos);
  CHECK(list.output.find(" ok") != std::string::npos);
  CHECK(test::run_kbench("cache info --dir " + cache.string()).output.find("entries: 1") != std::string::npos);
  CHECK(test::run_kbench("cache clear --dir " + cache.string()).output.find("removed 1 entries") != std::string::npos);
  CHECK(test::run_kbench("cache info --dir " + cache.string()).output.find("entries: 0") != std::string::npos);
}

TEST_CASE("without Landlock the shared cache is off, and the result says why") {
  test::TempDir dir;
  const auto run = run_suite(dir.path() / "kbench-cache", dir.path(), "extension_cache_off.yaml", "off",
                             "KBENCH_SANDBOX=no-landlock");
  const auto& result = run.results["results"][0];
  INFO(result.dump(2));
  CHECK(result["status"] == "ok");
  CHECK(result["diagnostics"]["sandbox"]["filesystem_isolation"] == false);
  CHECK(result["diagnostics"]["extension_build"][0]["skipped"].get<std::string>().rfind("not static", 0) == 0);
  CHECK(result["diagnostics"]["extension_cache"]["off"].get<std::string>().find("no Landlock") != std::string::npos);
  CHECK(!fs::exists(dir.path() / "kbench-cache" / "extensions"));
}
