// End to end on the CPU: candidates whose source alone decides them (syntax error, no ModelNew,
// a forbidden import, a native candidate the policy refuses) get the statuses and messages of
// the full evaluation from one worker that never imported torch, ran no reference and started no
// second process (lib/worker/source_verdict.hpp); honest work after them is evaluated in full.
// Asserted on the result JSON's time split, not on wall time.
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "results_by_key.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

const nlohmann::json& phases(const nlohmann::json& result) {
  return result["diagnostics"]["worker_timeline"]["phases_s"];
}

nlohmann::json check_steps(const nlohmann::json& result) {
  return result["diagnostics"]["worker_timeline"].value("steps_s", nlohmann::json::object());
}

// Decided from the source: the source_checks phase only, and no work of the reference's.
void check_decided_by_source(const nlohmann::json& result) {
  INFO(result.dump(1).substr(0, 3000));
  const auto& p = phases(result);
  CHECK(p.contains("source_checks"));
  for (const char* phase : {"problem_setup", "reference", "reference_rebuild", "candidate_import", "correctness", "timing"})
    CHECK_FALSE(p.contains(phase));
  const nlohmann::json timings = result.value("timings", nlohmann::json::object());
  for (const auto& timing : timings) CHECK(timing.is_null());
  CHECK_FALSE(result["diagnostics"].contains("isolation"));  // one process: no blinded placement
  // startup_s is the interpreter's start, without torch: one process start of Python. Not a
  // wall-time assertion: torch's import alone is seconds on this machine, so the import's
  // absence is what a bound this loose shows.
  CHECK(result["diagnostics"]["worker_timeline"]["startup_s"].get<double>() < 2.0);
}

}  // namespace

TEST_CASE("candidates decided by their source alone never import torch nor run the reference") {
  test::TempDir dir;
  // Started when the job is claimed, and held before its key like the CUDA default: the verdict
  // is reached before the hold, so the release only delivers it.
  for (const std::string prestart : {"off", "on"}) {
    const auto results = dir.path() / (prestart + ".json");
    const auto out = test::run_kbench("run " + (test::kDataDir / "suites/source_verdict.yaml").string() +
                                      " --device cpu -q -o " + results.string() + " --work-dir " +
                                      (dir.path() / prestart).string() + " --prestart " + prestart);
    INFO("--prestart " << prestart << "\n" << out.output);
    REQUIRE(out.exit_code == 0);
    const auto json = nlohmann::json::parse(std::ifstream(results));
    const auto by = test::results_by_key(json["results"]);
    REQUIRE(by.size() == 6);

    const auto& syntax = by.at("add_one/syntax_error.py");
    CHECK(syntax["status"] == "compile_error");
    CHECK(syntax["message"].get<std::string>().find("the candidate failed to import: SyntaxError at ") == 0);
    CHECK(syntax["message"].get<std::string>().find("syntax_error.py:4: expected ':'") != std::string::npos);
    CHECK(syntax["diagnostics"]["line"] == 4);
    CHECK(syntax["diagnostics"]["traceback"].get<std::string>().find("SyntaxError: expected ':'") != std::string::npos);
    check_decided_by_source(syntax);

    const auto& missing = by.at("add_one/no_model_new.py");
    CHECK(missing["status"] == "compile_error");
    CHECK(missing["message"] == "the candidate defines no `ModelNew` class");
    check_decided_by_source(missing);

    const auto& forbidden = by.at("add_one/forbidden_import.py");
    CHECK(forbidden["status"] == "rejected");
    CHECK(forbidden["diagnostics"]["integrity"]["check"] == "forbidden_api");
    CHECK(forbidden["message"].get<std::string>().find("integrity check forbidden_api failed: line 4: import os") == 0);
    CHECK(forbidden["diagnostics"]["integrity"]["violations"].size() == 1);
    check_decided_by_source(forbidden);

    const auto& native = by.at("add_one/native_dlsym_timer.py");
    CHECK(native["status"] == "rejected");
    CHECK(native["diagnostics"]["integrity"]["check"] == "forbidden_api");
    CHECK_FALSE(native["diagnostics"].contains("extension_build"));  // nothing built either
    check_decided_by_source(native);

    // require_custom_kernel: a torch-only candidate is refused from its source too.
    const auto& torch_only = by.at("add_one_kernel/add_one_ok.py");
    CHECK(torch_only["status"] == "rejected");
    CHECK(torch_only["diagnostics"]["integrity"]["check"] == "no_custom_kernel");
    check_decided_by_source(torch_only);

    // The honest candidate after them: the whole evaluation, reference first.
    const auto& honest = by.at("add_one/add_one_ok.py");
    CHECK(honest["status"] == "ok");
    CHECK(phases(honest).contains("source_checks"));
    CHECK(phases(honest).contains("reference"));
    CHECK(phases(honest).contains("timing"));
    // The reference phase's steps (worker_timeline.steps_s): leaf work, never more than the phase.
    const auto& steps = honest["diagnostics"]["worker_timeline"]["steps_s"];
    INFO(steps.dump());
    double reference_steps = 0;
    for (const auto& [name, seconds] : steps.items())
      if (name.rfind("reference.", 0) == 0) reference_steps += seconds.get<double>();
    for (const char* step : {"reference.build_model", "reference.build_inputs", "reference.model_call",
                             "reference.expected_to_host", "reference.memory_plan", "reference.timing_sets",
                             "reference.baselines_build", "reference.prepare_timing"})
      CHECK(steps.contains(step));
    CHECK(reference_steps > 0);
    CHECK(reference_steps <= phases(honest)["reference"].get<double>());
    // A candidate refused from its source built no trial.
    for (const auto& item : check_steps(native).items()) CHECK(item.key().rfind("reference.", 0) != 0);
  }
}
