// End to end: reference work kept across the jobs of one problem (docs/timing.md#kept-reference-
// work), on the CPU with real workers. Four candidates of add_one with eager and Inductor
// baselines: kept (--keep-reference on) against the full protocol (off): a job the record serves
// neither compiles Inductor nor re-times the baselines, its baseline figures are the trusted
// record's, and statuses equal the full protocol's; a job whose drift check fails (host timing
// on a loaded machine) must show the documented fallback, and at least one later job must be
// served by a record measured before it. The second candidate
// (tests/hostile/kept_reference_poisoner.py) writes into the store; no later baseline changes.
// Then a drift bound nothing can meet sends every job to the full protocol, and candidates their
// source decides (a syntax error, no ModelNew) are not made to wait for the first record (~10 s,
// eager only). Inductor compiles
// C++ on the CPU (three compilations: the trusted worker's, two full jobs'): ~3 min alone on the
// 2-core machine, ~8 min beside three other builds. Run alone in CTest (RUN_SERIAL): its drift
// checks time the host, and a test beside it is the noise they are meant to refuse.
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "exec/sandbox.hpp"
#include "results_by_key.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

// A suite in `dir`: add_one with these candidates (copied there under their names, in order).
fs::path write_suite(const fs::path& dir, const std::string& name,
                     const std::vector<std::pair<std::string, fs::path>>& candidates, const std::string& baselines) {
  fs::create_directories(dir / "candidates");
  std::string list;
  for (const auto& [name, from] : candidates) {
    fs::copy_file(from, dir / "candidates" / name, fs::copy_options::overwrite_existing);
    list += "      - candidates/" + name + "\n";
  }
  const fs::path suite = dir / (name + ".yaml");
  std::ofstream(suite) << "schema_version: 1\nsuite: kept\ndefaults:\n  skip_checks: [forbidden_api]\n"
                       << "  seeds: 2\n  baselines: " << baselines << "\n  timeout_s: 300\n"
                       << "  timing: {warmup: 1, min_samples: 6, samples_per_round: 3, max_time_s: 1.0}\n"
                       << "problems:\n  - id: add_one\n    file: " << (test::kDataDir / "problems" / "add_one.py").string()
                       // 768 x 768, not the file's 64 x 64 (2048 x 2048 drifted by allocator state: 16 MiB
                       // outputs); a 6 us op had hiccups that put drift CIs past the first case's bound.
                       << "\n    sizes: {cpu: {N: 768}}\n    candidates:\n"
                       << list;
  return suite;
}

nlohmann::json run(const fs::path& suite, const fs::path& dir, const std::string& tag, const std::string& flags) {
  const auto results = dir / (tag + ".json");
  const auto out = test::run_kbench("run " + suite.string() + " --device cpu --jobs 1 --work-dir " +
                                    (dir / ("work-" + tag)).string() + " -o " + results.string() + " " + flags);
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  return nlohmann::json::parse(std::ifstream(results))["results"];
}

// The work dir of the suite's job `index`.
std::string job_dir_name(std::size_t index) {
  char name[16];
  std::snprintf(name, sizeof name, "job-%04zu", index);
  return name;
}

double phase(const nlohmann::json& result, const char* name) {
  return result["diagnostics"]["worker_timeline"]["phases_s"].value(name, 0.0);
}

std::vector<double> samples(const nlohmann::json& result, const char* variant) {
  return result["timings"][variant]["samples_ms"].get<std::vector<double>>();
}

// What the poisoner printed: did any of its writes into the store (not its own cache) succeed?
bool wrote_into_store(const std::string& said) {
  std::istringstream lines(said);
  for (std::string line; std::getline(lines, line);)
    if (line.find("/kept-reference/") != std::string::npos && line.size() > 9 &&
        line.compare(line.size() - 9, 9, ": written") == 0)
      return true;
  return false;
}

}  // namespace

TEST_CASE("kept reference work: baselines measured once, verdicts as the full protocol's, not poisonable") {
  test::TempDir dir;
  const auto ok = test::kDataDir / "candidates" / "add_one_ok.py";
  const std::pair<std::string, fs::path> a_ok{"a_ok.py", ok},
      poison{"b_poison.py", test::kSourceDir / "tests/hostile/kept_reference_poisoner.py"};
  const std::vector<std::string> names{"a_ok.py", "b_poison.py", "c_ok.py", "d_ok.py"};
  const auto suite = write_suite(dir.path(), "kept", {a_ok, poison, {"c_ok.py", ok}, {"d_ok.py", ok}}, "[eager, inductor]");
  // The full protocol on the first two only: each of its jobs compiles Inductor (C++ on the CPU).
  const auto full_suite = write_suite(dir.path(), "full", {a_ok, poison}, "[eager, inductor]");
  // A bound wide enough for the CPU's noise: this case is about what is kept, not drift.
  const auto kept = test::results_by_key(run(suite, dir.path(), "kept", "--keep-reference on --keep-reference-drift 0.9"));
  const auto full = test::results_by_key(run(full_suite, dir.path(), "full", "--keep-reference off"));
  const bool landlock = sandbox_support().landlock_abi > 0;
  auto job = [&](std::size_t i) -> const nlohmann::json& { return kept.at("add_one/" + names[i]); };

  for (const auto& [key, result] : full) {
    INFO(key);
    CHECK(result["status"] == kept.at(key)["status"]);  // the same verdicts
    CHECK_FALSE(result.contains("kept_reference"));
    CHECK(result["timings"]["inductor"].is_object());
  }
  const std::string digest = job(0)["kept_reference"]["key"];
  const auto record_file = dir.path() / "work-kept" / "kept-reference" / digest / "record.json";
  REQUIRE(fs::exists(record_file));
  // Every job either kept the record's figures or -- its drift check failed, which host timing on
  // a loaded 2-core machine does now and then (seen: +31.7% on the first job, a CI of [0.38, 4.26]
  // on a later one, under this 0.9 bound) -- took the documented fallback: the record measured
  // again by a trusted worker, then the job again with the full protocol. Nothing else. The eager
  // samples of the record in force are followed from job to job: a kept job's are exactly the
  // record's, and jobs served by one record share them.
  std::optional<std::vector<double>> in_force;  // the record's eager samples, once a kept job showed them
  int reused = 0;                               // kept jobs served by a record measured for an earlier job
  std::optional<std::size_t> last_reused;
  int uses_before = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& result = job(i);
    const auto& use = result["kept_reference"];
    INFO(names[i] << "\n" << result.dump(2));
    REQUIRE(result["status"] == "ok");  // the poisoner is correct: only its writes are hostile
    CHECK(use["key"] == digest);
    CHECK(result["timings"]["inductor"].is_object());
    CHECK(result["speedups"].contains("inductor"));
    if (i == 0) {
      CHECK(use["refreshed"] == true);  // the first job had the record measured
      CHECK(use["refresh_s"].get<double>() > 0);
    }
    if (use.value("fallback", "").find("fresh baseline differs") != std::string::npos) {
      CHECK(use["kept"] == false);
      CHECK(use["refreshed"] == true);  // the record measured again, by a trusted worker
      CHECK(use["drift"].is_number());
      CHECK(result["diagnostics"]["kept_reference"]["first_attempt"]["status"] == "ok");
      CHECK(result["protocol"].contains("pre_import_median_ms"));  // the full protocol ran
      CHECK_FALSE(result["protocol"].contains("kept_baselines"));
      CHECK(fs::is_directory(dir.path() / "work-kept" / job_dir_name(i) / "full"));
      in_force.reset();  // a new record, which no kept job has shown yet
      continue;
    }
    REQUIRE(use["kept"] == true);
    CHECK(use.value("fallback", "") == "");
    CHECK(use["drift"].is_number());
    // Only the drift baseline was timed fresh; the Inductor figures are the record's.
    CHECK(result["diagnostics"]["kept_reference"]["fresh_baselines"].contains("eager"));
    CHECK_FALSE(result["diagnostics"]["kept_reference"]["fresh_baselines"].contains("inductor"));
    CHECK(result["protocol"].contains("kept_baselines"));
    const int uses = use["uses"].get<int>();
    if (use["refreshed"] == false) {
      ++reused;
      last_reused = i;
      if (in_force) {
        CHECK(samples(result, "eager") == *in_force);
        CHECK(uses == uses_before + 1);
      } else {
        CHECK(uses == 1);  // the first job served by the record a drift fallback measured
      }
    } else {
      CHECK(uses == 1);  // a record measured for this job
    }
    uses_before = uses;
    in_force = samples(result, "eager");
  }
  // The record on disk is the last one measured; when a kept job showed it, these are its figures.
  const auto record = nlohmann::json::parse(std::ifstream(record_file));
  if (in_force) CHECK(record["baselines"]["eager"]["samples_ms"].get<std::vector<double>>() == *in_force);
  // Reuse itself: at least one job was served by a record measured before it, for another job
  // (all three later jobs would have to drift for this to fail on noise; broken reuse always does).
  REQUIRE(reused >= 1);

  // The poisoner ran (correct), and whatever it wrote changed no later baseline.
  const auto& poisoner = job(1);
  const std::string said = poisoner["diagnostics"].value("stdout_tail", "");
  CHECK(said.find("kept-reference-poisoner") != std::string::npos);
  // Never the forged 1000x baseline: the kept figures are the controller's, from memory.
  for (std::size_t i = 2; i < names.size(); ++i)
    for (const double ms : samples(job(i), "eager")) CHECK(ms < 100 * samples(job(0), "eager").front());
  const auto& c_ok = job(2);
  if (landlock) {
    // The store was out of the poisoner's reach: no record was measured again except for a drift.
    CHECK_FALSE(wrote_into_store(said));
    for (std::size_t i = 1; i < names.size(); ++i)
      if (job(i)["kept_reference"]["refreshed"] == true) {
        INFO(names[i]);
        CHECK(job(i)["kept_reference"]["kept"] == false);
      }
  } else {
    // Written, then noticed at the next copy: the record was measured again, by a trusted worker.
    CHECK(c_ok["kept_reference"]["refreshed"] == true);
  }
  // No Inductor compilation in a reused job: its reference phase is a fraction of the full one's.
  const auto& reuser = job(*last_reused);
  const auto& d_full = full.at("add_one/a_ok.py");
  INFO(reuser.dump(2));
  INFO(d_full.dump(2));
  CHECK(reuser["kept_reference"]["age_s"].get<double>() > 0);
  CHECK(phase(reuser, "reference") < 0.5 * phase(d_full, "reference"));
  CHECK(phase(reuser, "reference") + phase(reuser, "timing") < phase(d_full, "reference") + phase(d_full, "timing"));
}

TEST_CASE("a drift beyond the bound sends the job to the full protocol and the record is measured again") {
  test::TempDir dir;
  const auto ok = test::kDataDir / "candidates" / "add_one_ok.py";
  // With Inductor: the full attempt runs on a copy of the trusted worker's Inductor cache, whose
  // restored kernels once wrote into the trusted dir (H100 2026-12-06, reference_unit.cpp).
  const auto suite = write_suite(dir.path(), "drift", {{"a_ok.py", ok}, {"b_ok.py", ok}}, "[eager, inductor]");
  // No short sample's CI fits within 1 -/+ 1e-6.
  const auto results = test::results_by_key(run(suite, dir.path(), "drift", "--keep-reference on --keep-reference-drift 1e-6"));
  for (const auto& [key, result] : results) {
    INFO(result.dump(2));
    REQUIRE(result["status"] == "ok");
    CHECK(result["kept_reference"]["kept"] == false);
    CHECK(result["kept_reference"]["refreshed"] == true);
    CHECK(result["kept_reference"]["fallback"].get<std::string>().find("not within 1 -/+ 1e-06") != std::string::npos);
    CHECK(result["kept_reference"]["drift_ci"].is_array());
    CHECK(result["diagnostics"]["kept_reference"]["first_attempt"]["status"] == "ok");
    CHECK(result["speedups"].contains("eager"));
    CHECK(result["speedups"].contains("inductor"));
    const auto notes = result["diagnostics"].value("baselines", nlohmann::json::object());
    CHECK_FALSE(notes.value("inductor", nlohmann::json::object()).contains("error"));
    // The full protocol's pre-import run was taken again.
    CHECK(result["protocol"].contains("pre_import_median_ms"));
  }
  CHECK(fs::is_directory(dir.path() / "work-drift" / "job-0000" / "full"));
}

TEST_CASE("candidates their source decides do not pay for the first record; the next job does") {
  test::TempDir dir;
  // Eager only (no Inductor compile): the record's measurement is the reference run and timing.
  const auto suite = write_suite(dir.path(), "source",
                                 {{"a_syntax.py", test::kSourceDir / "tests" / "hostile" / "syntax_error.py"},
                                  {"b_no_model.py", test::kSourceDir / "tests" / "hostile" / "no_model_new.py"},
                                  {"c_ok.py", test::kDataDir / "candidates" / "add_one_ok.py"}},
                                 "[eager]");
  const auto results = test::results_by_key(run(suite, dir.path(), "source", "--keep-reference on --keep-reference-drift 0.9"));
  for (const char* name : {"add_one/a_syntax.py", "add_one/b_no_model.py"}) {
    const auto& decided = results.at(name);
    INFO(decided.dump(2));
    CHECK(decided["status"] == "compile_error");
    CHECK(decided["kept_reference"]["refreshed"] == false);
    CHECK(decided["kept_reference"].value("refresh_s", 0.0) == 0.0);
    CHECK(decided["kept_reference"]["fallback"].get<std::string>().find("decided by the candidate's source") !=
          std::string::npos);
    // Its only worker stopped after the source checks: no torch, no reference, no baseline.
    CHECK(decided["diagnostics"]["worker_timeline"]["phases_s"].contains("source_checks"));
    CHECK_FALSE(decided["diagnostics"]["worker_timeline"]["phases_s"].contains("reference"));
    CHECK(decided["timings"].value("eager", nlohmann::json()).is_null());
  }
  const auto& ok = results.at("add_one/c_ok.py");
  INFO(ok.dump(2));
  REQUIRE(ok["status"] == "ok");
  CHECK(ok["kept_reference"]["refreshed"] == true);  // the record was measured for it, the first to need it
  CHECK(ok["kept_reference"]["refresh_s"].get<double>() > 0);
  CHECK(ok["speedups"].contains("eager"));
}
