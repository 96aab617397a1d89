// End to end through `kbench worker`: the reference unit run alone (in a process that never
// loads the candidate), then the candidate unit of many candidates against what it wrote, in
// other processes, through the narrow interface (worker/reference_work.hpp). Each verdict must
// equal the single pass's (both units in one process); work that was altered, or that another
// process cannot rebuild from its seeds, is refused.
#include <cstdlib>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "core/hmac_sha256.hpp"
#include "model/codec.hpp"
#include "run/job_planning.hpp"
#include "exec/result_channel.hpp"
#include "suite/suite.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {

// One `kbench worker --job` process with its result channel and key on fds 3 and 4 and the
// CPU's TRITON_INTERPRET (as the controller gives them); the decoded, MAC-verified message.
nlohmann::json run_worker(const Job& job, const test::TempDir& dir, const std::string& name,
                          const std::string& extra = "") {
  const auto job_file = dir.write(name + ".job.json", to_json(job).dump());
  const std::string key = make_channel_key();
  const auto key_file = dir.path() / (name + ".key");
  std::ofstream(key_file, std::ios::binary) << key;
  const auto frame = dir.path() / (name + ".frame");
  const auto log = dir.path() / (name + ".log");
  const std::string command = "TRITON_INTERPRET=1 " + test::kKbench.string() + " worker --job " + job_file.string() +
                              " --result-fd 3 --key-fd 4 " + extra + " 3>" + frame.string() + " 4<" +
                              key_file.string() + " >" + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  INFO(name << ": " << test::read_text(log));
  REQUIRE(status == 0);
  std::string why;
  const auto payload = decode_result_frame(test::read_text(frame), key, &why);
  INFO(why);
  REQUIRE(payload);
  return nlohmann::json::parse(*payload);
}

std::string field(const nlohmann::json& message, const char* object, const char* key) {
  const auto& diagnostics = message.at("diagnostics");
  if (!diagnostics.contains(object) || !diagnostics[object].contains(key)) return "";
  return diagnostics[object][key].get<std::string>();
}

// A verdict's message up to its evidence ("seed trial, seed 1000", "integrity check X failed"):
// the evidence may name random elements, stale memory or a random input set.
std::string headline(const nlohmann::json& message) {
  const auto text = message.at("message").get<std::string>();
  return text.substr(0, text.find(':'));
}

Job job_for(const std::vector<Job>& jobs, const std::string& candidate) {
  for (const auto& job : jobs)
    if (job.problem_id == "clamp_affine" && job.candidate == candidate) return job;
  FAIL("no job for " << candidate);
  return {};
}

struct Work {
  std::filesystem::path file;
  std::string sha256;
  std::filesystem::path blinded;
  std::string blinded_sha256;
};

// The reference unit alone, for `job`'s problem, with a candidate file that would end the
// process if it were ever imported.
Work reference_work(Job job, const test::TempDir& dir, const std::string& name) {
  job.candidate_file = test::kSourceDir / "tests/hostile/exit_on_import.py";
  const auto file = dir.path() / (name + ".work");
  const auto message = run_worker(job, dir, name, "--reference-out " + file.string());
  REQUIRE(message.contains("reference_work"));
  const std::string bytes = test::read_text(file);
  CHECK(message["reference_work"]["bytes"] == bytes.size());
  CHECK(message["reference_work"]["sha256"] == to_hex(sha256(bytes)));
  const auto blinded = std::filesystem::path(file.string() + ".blinded");
  CHECK(message["blinded_work"]["sha256"] == to_hex(sha256(test::read_text(blinded))));
  return {file, message["reference_work"]["sha256"].get<std::string>(), blinded,
          message["blinded_work"]["sha256"].get<std::string>()};
}

std::string against(const Work& work) {
  return "--reference-in " + work.file.string() + " --reference-sha256 " + work.sha256;
}

// Commit, then reveal: the candidate unit against the blinded work (no expected values in its
// process), then the judge (no Python, no candidate code) against the full work.
nlohmann::json blinded_and_judged(const Job& job, const Work& work, const test::TempDir& dir, const std::string& name) {
  const auto commit = dir.path() / (name + ".commit");
  const auto provisional = run_worker(job, dir, name + ".blinded",
                                      "--reference-in " + work.blinded.string() + " --reference-sha256 " +
                                          work.blinded_sha256 + " --commit-out " + commit.string());
  REQUIRE(provisional.contains("commitment"));
  const auto provisional_file = dir.write(name + ".provisional.json", provisional.dump());
  return run_worker(job, dir, name + ".judge",
                    "--judge " + against(work) + " --commit-in " + commit.string() + " --commit-sha256 " +
                        provisional["commitment"]["sha256"].get<std::string>() + " --provisional " +
                        provisional_file.string());
}

}  // namespace

TEST_CASE("the candidate unit against the reference unit's work from another process gives the single pass's verdicts") {
  test::TempDir dir;
  const auto jobs = plan_jobs(load_suite(test::kDataDir / "suites/exploits.yaml"), Device{});
  const Work work = reference_work(job_for(jobs, "honest_torch.py"), dir, "reference");
  // Honest (torch and Triton), and one exploit per check that decides on the reference's data:
  // seed, alt-distribution and alt-shape trials, the timing sets' expected outputs, the
  // reference's own calls, the interpreter snapshot.
  std::vector<Job> cases;
  for (const char* name : {"honest_torch.py", "honest_triton.py", "stale_empty_like.py", "uniform_shortcut.py",
                           "shape_hardcoded.py", "cache_by_pointer.py", "first_buffer_only.py",
                           "reference_via_gc.py", "inplace_mutation.py", "monkeypatch_torch.py"})
    cases.push_back(job_for(jobs, name));
  // #17: a SyntaxError is reported with its file and line, in both placements.
  Job broken = cases.front();
  broken.candidate = "syntax_error.py";
  broken.candidate_file = test::kSourceDir / "tests/hostile/syntax_error.py";
  cases.push_back(broken);
  for (const auto& job : cases) {
    const auto single = run_worker(job, dir, job.candidate + ".single");
    const auto split = run_worker(job, dir, job.candidate + ".split", against(work));
    INFO(job.candidate << "\nsingle: " << single.dump().substr(0, 3000) << "\nsplit: " << split.dump().substr(0, 3000));
    CHECK(split["status"] == single["status"]);
    CHECK(headline(split) == headline(single));
    CHECK(field(split, "integrity", "check") == field(single, "integrity", "check"));
    CHECK(field(split, "mismatch", "trial") == field(single, "mismatch", "trial"));
    CHECK(split["diagnostics"].value("flags", nlohmann::json::array()) ==
          single["diagnostics"].value("flags", nlohmann::json::array()));
    if (single["status"] == "ok") {
      // Timed against the same baselines, with every timed call checked on the work's outputs.
      CHECK(split["timings"].contains("candidate"));
      CHECK(split["timings"].contains("eager"));
      CHECK(split["diagnostics"]["integrity_notes"]["timed_call_check"]["calls_checked"]["candidate"] > 0);
      CHECK(split["diagnostics"]["integrity_notes"]["timed_call_check"]["input_sets"] ==
            single["diagnostics"]["integrity_notes"]["timed_call_check"]["input_sets"]);
      CHECK(split["diagnostics"]["correctness"]["trials"] == single["diagnostics"]["correctness"]["trials"]);
      // The reference unit's memory plan crossed with the work (docs/memory.md): same footprint,
      // same decisions.
      CHECK(split["memory"]["plan"]["footprint"] == single["memory"]["plan"]["footprint"]);
      CHECK(split["memory"]["plan"]["plan"]["timing_sets"] == single["memory"]["plan"]["plan"]["timing_sets"]);
      CHECK(split["memory"]["plan"]["plan"]["trials_dropped"] == 0);
    }
  }
  const std::string expected_status[] = {"ok", "ok", "mismatch", "mismatch", "mismatch", "rejected",
                                         "rejected", "rejected", "rejected", "rejected", "compile_error"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto split = run_worker(cases[i], dir, cases[i].candidate + ".again", against(work));
    INFO(cases[i].candidate << ": " << split.dump().substr(0, 3000));
    CHECK(split["status"] == expected_status[i]);
    if (cases[i].candidate == "syntax_error.py") {
      CHECK(split["message"].get<std::string>().find("SyntaxError at ") != std::string::npos);
      CHECK(split["message"].get<std::string>().find("syntax_error.py:4") != std::string::npos);
      CHECK(split["diagnostics"]["line"] == 4);
    }
  }
}

TEST_CASE("reference work that was altered, or cannot be rebuilt from its seeds, is refused") {
  test::TempDir dir;
  const auto jobs = plan_jobs(load_suite(test::kDataDir / "suites/exploits.yaml"), Device{});
  const Job honest = job_for(jobs, "honest_torch.py");
  SECTION("one byte changed after the trusted side reported its digest") {
    const Work work = reference_work(honest, dir, "reference");
    std::string bytes = test::read_text(work.file);
    bytes[bytes.size() - 3] ^= 0x01;  // inside the last expected output's data
    std::ofstream(work.file, std::ios::binary | std::ios::trunc) << bytes;
    const auto result = run_worker(honest, dir, "tampered", against(work));
    CHECK(result["status"] == "problem_error");
    CHECK(result["message"].get<std::string>().find("is not the one its SHA-256 names") != std::string::npos);
  }
  SECTION("a problem whose inputs are not a function of the seed") {
    Job job = honest;
    job.problem_file = dir.write("unseeded.py", R"(import random
import torch
import torch.nn as nn

N = 8

class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(x, 0.0, 1.0) * 2.0 + 0.5

def get_inputs():
    return [torch.full((N, N), random.random())]

def get_init_inputs():
    return []
)");
    const Work work = reference_work(job, dir, "unseeded");
    const auto result = run_worker(job, dir, "unseeded.split", against(work));
    INFO(result.dump().substr(0, 3000));
    CHECK(result["status"] == "problem_error");
    CHECK(result["message"].get<std::string>().find("is not a function of its seed") != std::string::npos);
  }
}

TEST_CASE("blinded candidate units judged by a trusted process: the same verdicts, and host memory holds nothing to copy") {
  test::TempDir dir;
  const auto jobs = plan_jobs(load_suite(test::kDataDir / "suites/exploits.yaml"), Device{});
  const Work work = reference_work(job_for(jobs, "honest_torch.py"), dir, "reference");
  // The blinded copy holds no expected value: every expected output reads back poisoned.
  CHECK(test::read_text(work.blinded).size() < test::read_text(work.file).size() / 4);
  struct Case {
    const char* candidate;
    const char* single;   // status with both units in one process
    const char* judged;   // status once blinded and judged
    const char* check;    // diagnostics.integrity.check of the judged result
  };
  const Case cases[] = {
      {"honest_torch.py", "ok", "ok", ""},
      {"stale_empty_like.py", "mismatch", "mismatch", ""},
      {"uniform_shortcut.py", "mismatch", "mismatch", ""},
      {"shape_hardcoded.py", "mismatch", "mismatch", ""},
      {"first_buffer_only.py", "rejected", "rejected", "timed_call_check"},
      {"cache_by_pointer.py", "rejected", "rejected", "timed_call_check"},
      // Issue #20's native class: reads the expected outputs out of its own process's memory.
      // In one process it copies the trials' expected outputs, but a timed call's fresh values
      // have none until after the call (timed_call_check); blinded, nothing is there to copy.
      {"host_memory_expected.py", "rejected", "mismatch", ""},
  };
  for (const auto& c : cases) {
    Job job = job_for(jobs, "honest_torch.py");
    job.candidate = c.candidate;
    job.candidate_file = test::kSourceDir / "tests/hostile/exploits" / c.candidate;
    const auto single = run_worker(job, dir, std::string(c.candidate) + ".single");
    const auto judged = blinded_and_judged(job, work, dir, c.candidate);
    INFO(c.candidate << "\nsingle: " << single.dump().substr(0, 3000) << "\njudged: " << judged.dump().substr(0, 3000));
    CHECK(single["status"] == c.single);
    CHECK(judged["status"] == c.judged);
    CHECK(field(judged, "integrity", "check") == c.check);
    if (std::string(c.single) == c.judged && std::string(c.judged) == "mismatch") {
      CHECK(headline(judged) == headline(single));
      CHECK(field(judged, "mismatch", "trial") == field(single, "mismatch", "trial"));
    }
    if (std::string(c.judged) == "ok") {
      CHECK(judged["diagnostics"]["judged"]["calls"].get<long long>() >= judged["timings"]["candidate"]["samples_ms"].size());
      CHECK(judged["diagnostics"]["correctness"]["max_abs_error"] == single["diagnostics"]["correctness"]["max_abs_error"]);
    }
  }
}
