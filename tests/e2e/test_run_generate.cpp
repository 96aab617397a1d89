// End to end: `kbench run` with candidates from the scripted endpoint (tests/endpoint/
// scripted_openai.py): the smoke suite with --samples 2 on the CPU, the key in no file, and a run
// killed mid-generation that resumes without asking again for what was answered, and the agent
// loop (--turns 3: the feedback carried turn by turn, asserted on the server's side).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <thread>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "scripted_openai_server.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using nlohmann::json;

namespace {

const char* kSecret = "sk-e2e-7c2f-never-written";

std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every file under `dir` that contains `needle`.
std::vector<std::string> files_containing(const std::filesystem::path& dir, const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && read_all(entry.path()).find(needle) != std::string::npos)
      found.push_back(entry.path().string());
  return found;
}

// The file against docs/results.schema.json (tests/schema/validate_results.py, Python jsonschema).
int validate_against_schema(const std::filesystem::path& results) {
  const std::string command = std::string(KBENCH_TEST_PYTHON) + " " +
                              (test::kSourceDir / "tests/schema/validate_results.py").string() + " " +
                              (test::kSourceDir / "docs/results.schema.json").string() + " " +
                              results.string() + " >&2";
  return WEXITSTATUS(std::system(command.c_str()));
}

// `kbench ARGS` in the background, in a process group of its own (kill(-pid) ends all of it).
pid_t start_kbench_in_own_group(const std::string& args) {
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    const std::string command = test::kKbench.string() + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);
  return child;
}

}  // namespace

TEST_CASE("kbench run: the smoke suite with 2 samples per problem from the endpoint, on the CPU") {
  test::TempDir dir;
  json routes = json::array();
  for (const char* id : {"01_leaky_relu_scale", "02_softmax", "03_matmul", "04_layernorm",
                         "05_bias_gelu_residual", "06_attention_scores"}) {
    const auto solution = test::kSourceDir / "benchmarks/solutions/smoke" / (std::string(id) + "_triton.py");
    routes.push_back({{"match", std::string("`") + id + "`"},
                      {"action", {{"content", "Here it is:\n```python\n" + read_all(solution) + "```\n"}}}});
  }
  test::ScriptedOpenAI server(json{{"routes", routes}});
  setenv("KBENCH_E2E_KEY", kSecret, 1);
  const auto results = dir.path() / "gen.json";
  const std::string command = "run " + (test::kSourceDir / "configs/suites/smoke.yaml").string() +
                              " --device cpu --base-url " + server.base_url() +
                              " --model scripted-coder --samples 2 --api-key-env KBENCH_E2E_KEY" +
                              " --generate-cache " + (dir.path() / "cache.sqlite").string() +
                              " --work-dir " + (dir.path() / "work").string() + " --keep-work-dir -o " +
                              results.string();
  const auto out = test::run_kbench(command);
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  CHECK(out.output.find("generation: 12 samples; 6 requests sent: 66 prompt + 42 completion tokens") !=
        std::string::npos);

  const auto requests = server.requests();
  REQUIRE(requests.size() == 6);  // one request with n = 2 per problem
  for (const auto& r : requests) {
    CHECK(r["headers"]["Authorization"] == std::string("Bearer ") + kSecret);
    CHECK(r["body"]["n"] == 2);
    CHECK(r["body"]["model"] == "scripted-coder");
  }
  const auto json_results = json::parse(std::ifstream(results));
  REQUIRE(json_results["results"].size() == 12);
  std::set<std::pair<std::string, int>> seen;
  for (const auto& r : json_results["results"]) {
    INFO(r["problem"] << "/" << r["candidate"] << ": " << r["message"]);
    CHECK(r["status"] == "ok");
    CHECK(r["generation"]["turn"] == 1);
    CHECK(r["generation"]["model"] == "scripted-coder");
    CHECK(r["generation"]["usage"]["prompt"] == 11);
    CHECK(r["generation"]["from_cache"] == false);
    seen.insert({r["problem"].get<std::string>(), r["generation"]["sample"].get<int>()});
    const std::filesystem::path file = r["candidate_file"].get<std::string>();
    CHECK(file.parent_path() == std::filesystem::path(results.string() + ".generated") / r["problem"].get<std::string>());
    CHECK(std::filesystem::exists(r["generation"]["reply_file"].get<std::string>()));
  }
  CHECK(seen.size() == 12);
  const auto& g = json_results["generation"];
  CHECK(g["requests"] == 6);
  CHECK(g["samples"] == 2);
  CHECK(g["candidates"] == 12);
  CHECK(g["usage"]["completion"] == 42);
  CHECK(g["base_url"] == server.base_url());
  CHECK(json_results["summary"]["pass_at_1"] == 1.0);
  CHECK(validate_against_schema(results) == 0);

  // The key: sent as the bearer header, written nowhere (results, replies, cache, worker logs).
  CHECK(files_containing(dir.path(), kSecret).empty());
  CHECK(out.output.find(kSecret) == std::string::npos);
  unsetenv("KBENCH_E2E_KEY");
}

TEST_CASE("kbench run: killed mid-generation, the re-run asks only for what was not answered") {
  test::TempDir dir;
  const auto suite = dir.write(
      "suite.yaml", "suite: kill\ngenerate:\n  model: m\n  samples: 4\n  concurrency: 1\nproblems:\n"
                    "  - {id: add_one, file: " + (test::kDataDir / "problems/add_one.py").string() + "}\n");
  // One choice per request, slowly: the samples arrive one by one. No code: nothing to evaluate.
  test::ScriptedOpenAI server(json{{"default", {{"content", "no code {request}"}, {"choices", 1}, {"delay_s", 1.0}}}});
  const std::string args = "run " + suite.string() + " --device cpu --base-url " + server.base_url() +
                           " --generate-cache " + (dir.path() / "cache.sqlite").string() + " -o " +
                           (dir.path() / "r.json").string();
  const pid_t child = start_kbench_in_own_group(args);
  // One request at a time: the third arrives only after the first two were answered and stored.
  for (int i = 0; i < 1200 && server.requests().size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::size_t arrived_before_kill = server.requests().size();
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
  REQUIRE(arrived_before_kill == 3);
  const std::size_t before_rerun = server.requests().size();

  const auto out = test::run_kbench(args);
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto results = json::parse(std::ifstream(dir.path() / "r.json"));
  REQUIRE(results["results"].size() == 4);
  int cached = 0;
  for (const auto& r : results["results"]) {
    CHECK(r["status"] == "no_code");
    CHECK(r["message"].get<std::string>().find("no fenced code block") != std::string::npos);
    cached += r["generation"]["from_cache"].get<bool>() ? 1 : 0;
  }
  // What the killed run had received is served from the cache; only the request in flight at the
  // kill (its reply was 1 s away) and the one never sent are asked again.
  CHECK(cached == 2);
  const auto requests = server.requests();
  const std::size_t rerun_requests = requests.size() - before_rerun;
  CHECK(rerun_requests == std::size_t(4 - cached));
  if (rerun_requests > 0) CHECK(requests[before_rerun]["body"].value("n", 1) == 4 - cached);
  CHECK(results["summary"]["correct"] == 0);
  CHECK(results["summary"]["pass_at_1"] == 0.0);  // no_code counts as a failure
  CHECK(validate_against_schema(dir.path() / "r.json") == 0);

  // A third run: everything from the cache, no request at all.
  const auto again = test::run_kbench(args);
  REQUIRE(again.exit_code == 0);
  CHECK(server.requests().size() == requests.size());
  CHECK(again.output.find("4 served from the cache") != std::string::npos);  // four single-choice requests
  CHECK(again.output.find("0 requests sent") != std::string::npos);
}

TEST_CASE("kbench run --turns 3: each evaluation's feedback goes back to the model, turn by turn", "[agent]") {
  test::TempDir dir;
  const auto suite = dir.write(
      "suite.yaml", "suite: agent\ndefaults: {seeds: 1, baselines: [eager], timing: {warmup: 1, min_samples: 2, "
                    "max_time_s: 0.2}}\ngenerate:\n  model: m\n  samples: 2\n  turns: 3\nproblems:\n"
                    "  - {id: add_one, file: " + (test::kDataDir / "problems/add_one.py").string() + "}\n");
  const std::string ok_code = "```python\n" + read_all(test::kDataDir / "candidates/add_one_ok.py") + "```\n";
  // Turn 1: sample 0 returns the wrong shape (mismatch), sample 1 is right. A failure's feedback
  // gets the fix, a correct one's gets no code, and "no code" gets the fix: routes on the last
  // user message, the feedback, first.
  const json routes = json::array(
      {{{"match", "`add_one`: status"}, {"action", {{"content", "Fixed:\n" + ok_code}}}},
       {{"match", "held no code"}, {"action", {{"content", "Here:\n" + ok_code}}}},
       {{"match", "`add_one`: it is correct"}, {"action", {{"content", "It cannot get faster."}}}},
       {{"match", "`add_one`"},
        {"action", {{"content", "```python\nimport torch.nn as nn\nBROKEN = {choice} == 0\n\n\nclass ModelNew(nn.Module):\n"
                                "    def forward(self, x):\n        return (x + 1.0).reshape(-1) if BROKEN else x + 1.0\n```\n"}}}}});
  test::ScriptedOpenAI server(json{{"routes", routes}});
  const std::string args = "run " + suite.string() + " --device cpu --base-url " + server.base_url() +
                           " --generate-cache " + (dir.path() / "cache.sqlite").string() + " -o " +
                           (dir.path() / "r.json").string();
  const auto out = test::run_kbench(args);
  INFO(out.output);
  REQUIRE(out.exit_code == 0);

  // The server's side: one request with n = 2 for turn 1, then one per conversation and turn.
  const auto requests = server.requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0]["body"]["n"] == 2);
  const auto first_messages = requests[0]["body"]["messages"];
  // The later requests by sample (its turn-1 reply says which) and turn (the length).
  std::map<std::pair<int, std::size_t>, json> later;
  for (std::size_t r = 1; r < requests.size(); ++r) {
    const auto& messages = requests[r]["body"]["messages"];
    CHECK(requests[r]["body"].value("n", 1) == 1);
    REQUIRE(messages.size() > first_messages.size());
    const int sample = messages[first_messages.size()]["content"].get<std::string>().find("BROKEN = 0 == 0") !=
                               std::string::npos ? 0 : 1;
    later[{sample, messages.size()}] = messages;
  }
  const std::size_t turn2 = first_messages.size() + 2, turn3 = first_messages.size() + 4;
  REQUIRE(later.count({0, turn2}) == 1);
  REQUIRE(later.count({0, turn3}) == 1);
  REQUIRE(later.count({1, turn2}) == 1);
  REQUIRE(later.count({1, turn3}) == 1);
  for (const auto& [where, messages] : later) {
    // Each conversation repeats the first turn's messages exactly, then assistant/user pairs.
    for (std::size_t m = 0; m < first_messages.size(); ++m) CHECK(messages[m] == first_messages[m]);
    for (std::size_t m = first_messages.size(); m < messages.size(); ++m)
      CHECK(messages[m]["role"] == ((m - first_messages.size()) % 2 == 0 ? "assistant" : "user"));
  }
  auto text = [](const json& message) { return message["content"].get<std::string>(); };
  // Sample 0: the mismatch with its evidence, then the fix's verdict and times.
  const auto& s0 = later[{0, turn3}];
  CHECK(text(s0[turn2 - 1]).find("`add_one`: status mismatch") != std::string::npos);
  CHECK(text(s0[turn2 - 1]).find("Details:") != std::string::npos);  // the comparison's evidence
  CHECK(text(s0[turn3 - 2]).find("Fixed:") != std::string::npos);        // turn 2's reply, verbatim
  CHECK(text(s0[turn3 - 1]).find("`add_one`: it is correct") != std::string::npos);
  CHECK(text(s0[turn3 - 1]).find("PyTorch eager:") != std::string::npos);
  CHECK(text(s0[turn3 - 1]).find(" ms") != std::string::npos);
  // Sample 1: correct at once (its times), then a reply without code, and that said.
  const auto& s1 = later[{1, turn3}];
  CHECK(text(s1[turn2 - 1]).find("it is correct") != std::string::npos);
  CHECK(text(s1[turn3 - 2]) == "It cannot get faster.");
  CHECK(text(s1[turn3 - 1]).find("held no code") != std::string::npos);

  // Every turn kept and reported, in problem/sample/turn order; the per-turn figures.
  const auto results = json::parse(std::ifstream(dir.path() / "r.json"));
  REQUIRE(results["results"].size() == 6);
  const std::vector<std::tuple<int, int, std::string>> expected = {
      {0, 1, "mismatch"}, {0, 2, "ok"}, {0, 3, "no_code"}, {1, 1, "ok"}, {1, 2, "no_code"}, {1, 3, "ok"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& r = results["results"][i];
    INFO(i << ": " << r["message"]);
    CHECK(r["generation"]["sample"] == std::get<0>(expected[i]));
    CHECK(r["generation"]["turn"] == std::get<1>(expected[i]));
    CHECK(r["status"] == std::get<2>(expected[i]));
  }
  const auto& by_turn = results["generation"]["by_turn"];
  REQUIRE(by_turn.size() == 3);
  CHECK(by_turn[0]["pass_at_1"] == 0.5);  // turn 1 alone: one sample of two
  CHECK(by_turn[1]["pass_at_1"] == 1.0);  // the best so far: both
  CHECK(by_turn[2]["pass_at_1"] == 1.0);
  CHECK(by_turn[0]["statuses"]["mismatch"] == 1);
  CHECK(by_turn[1]["statuses"]["no_code"] == 1);
  CHECK(by_turn[2]["fast_p"]["eager"]["0"] == 1.0);  // p = 0: correct
  CHECK(results["complete"] == true);
  CHECK(out.output.find("turn 1: 2 evaluations (mismatch 1, ok 1); pass@1 0.500") != std::string::npos);
  CHECK(out.output.find("turn 3: 2 evaluations (no_code 1, ok 1); pass@1 1.000") != std::string::npos);
  CHECK(validate_against_schema(dir.path() / "r.json") == 0);

  // A second run replays the whole conversation from the cache: the times differ, the requests not.
  const auto again = test::run_kbench(args);
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(server.requests().size() == 5);
  CHECK(again.output.find("0 requests sent") != std::string::npos);
  const auto replayed = json::parse(std::ifstream(dir.path() / "r.json"));
  REQUIRE(replayed["results"].size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(replayed["results"][i]["status"] == results["results"][i]["status"]);
}

TEST_CASE("kbench run --turns 3: killed mid-conversation, --resume finishes it without redoing a turn", "[agent]") {
  test::TempDir dir;
  const auto suite = dir.write(
      "suite.yaml", "suite: agent-kill\ndefaults: {seeds: 1, baselines: [eager], timing: {warmup: 1, min_samples: 2, "
                    "max_time_s: 0.2}}\ngenerate:\n  model: m\n  samples: 2\n  turns: 3\nproblems:\n"
                    "  - {id: add_one, file: " + (test::kDataDir / "problems/add_one.py").string() + "}\n");
  const std::string ok_code = "```python\n" + read_all(test::kDataDir / "candidates/add_one_ok.py") + "```\n";
  // Every reply is the correct candidate: six evaluations, each a worker run of a few seconds.
  test::ScriptedOpenAI server(json{{"default", {{"content", "Here:\n" + ok_code}}}});
  const auto journal = dir.path() / "r.json.journal.jsonl";
  const std::string args = "run " + suite.string() + " --device cpu --base-url " + server.base_url() +
                           " --generate-cache " + (dir.path() / "cache.sqlite").string() + " -o " +
                           (dir.path() / "r.json").string();
  const pid_t child = start_kbench_in_own_group(args);
  // Kill once two evaluations are journaled (header + 2 lines): the conversations are mid-way.
  auto journal_lines = [&] {
    std::ifstream in(journal);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) lines.push_back(line);
    return lines;
  };
  for (int i = 0; i < 6000 && journal_lines().size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
  const auto kept = journal_lines();
  REQUIRE(kept.size() >= 3);
  REQUIRE(kept.size() < 7);  // not all six: the kill came mid-run
  // The evaluations done before the kill, by (sample, turn), with their start times.
  std::map<std::pair<int, int>, json> done_before;
  for (std::size_t i = 1; i < kept.size(); ++i) {
    const auto line = json::parse(kept[i]);
    const auto& r = line["result"];
    done_before[{r["generation"]["sample"].get<int>(), r["generation"]["turn"].get<int>()}] = r["schedule"];
  }
  const std::size_t requests_before = server.requests().size();

  const auto out = test::run_kbench(args + " --resume");
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto results = json::parse(std::ifstream(dir.path() / "r.json"));
  REQUIRE(results["results"].size() == 6);
  CHECK(results["complete"] == true);
  std::set<std::pair<int, int>> seen;
  for (const auto& r : results["results"]) {
    const std::pair<int, int> where{r["generation"]["sample"].get<int>(), r["generation"]["turn"].get<int>()};
    CHECK(seen.insert(where).second);  // each (sample, turn) once
    CHECK(r["status"] == "ok");
    // A turn evaluated before the kill is the journal's result, not a second evaluation.
    if (done_before.count(where)) CHECK(r["schedule"] == done_before[where]);
  }
  CHECK(seen.size() == 6);
  // Replies the killed run had stored come from the cache: over both runs, the five requests of
  // a whole run (turn 1 with n = 2, then one per conversation and turn) plus at most the one in
  // flight at the kill.
  INFO(requests_before << " requests before the kill");
  CHECK(server.requests().size() <= 6);
  CHECK(validate_against_schema(dir.path() / "r.json") == 0);
}
