// `kbench run --shard i/N` splits a suite disjointly and completely; `kbench merge` of the
// shards' results gives the unsharded summary.
#include <fstream>
#include <set>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "report/report_merge.hpp"
#include "report/results_json.hpp"
#include "run/shard.hpp"
#include "run_kbench.hpp"
#include "sample_report.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("--shard parses i/N with 0 <= i < N") {
  const Shard s = parse_shard("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  CHECK(parse_shard("0/1").count == 1);
  for (const char* bad : {"", "1", "5/5", "-1/3", "1/0", "a/b", "1/2/3", " 1/2", "1/"})
    CHECK_THROWS_AS(parse_shard(bad), InputError);
}

TEST_CASE("shards are disjoint, cover the suite, and do not move when problems are added") {
  std::vector<std::string> ids;
  for (int i = 0; i < 200; ++i) ids.push_back("level1/problem_" + std::to_string(i));
  for (std::size_t n : {1, 2, 3, 7}) {
    std::vector<int> owners(ids.size(), 0);
    std::set<std::size_t> used;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < ids.size(); ++k)
        if (in_shard(ids[k], {i, n})) {
          ++owners[k];
          used.insert(i);
        }
    for (int o : owners) CHECK(o == 1);
    CHECK(used.size() == n);  // no empty shard on 200 problems
  }
  // The shard depends on the id alone.
  CHECK(in_shard("level1/problem_3", {0, 4}) == in_shard(std::string("level1/problem_") + "3", {0, 4}));
}

TEST_CASE("merging the shards' results gives the unsharded summary") {
  const RunReport whole = test::sample_report();
  const Shard shards[] = {{0, 2}, {1, 2}};
  std::vector<std::pair<std::string, RunReport>> parts;
  for (const auto& shard : shards) {
    RunReport part = whole;
    part.results.clear();
    for (const auto& r : whole.results)
      if (in_shard(r.job.problem_id, shard)) part.results.push_back(r);
    part.planned_jobs = part.results.size();
    parts.emplace_back("shard" + std::to_string(shard.index) + ".json", part);
  }
  // Merge order must not matter.
  for (bool reversed : {false, true}) {
    auto inputs = parts;
    if (reversed) std::swap(inputs[0], inputs[1]);
    const auto merged = results_json(merge_reports(inputs, false));
    const auto expected = results_json(whole);
    CHECK(merged["summary"] == expected["summary"]);
    CHECK(merged["results"] == expected["results"]);
    CHECK(merged["complete"] == true);
  }
}

TEST_CASE("merge refuses duplicates and other environments, and keeps incompleteness") {
  const RunReport a = test::sample_report();
  CHECK_THROWS_AS(merge_reports({{"a", a}, {"b", a}}, false), InputError);
  RunReport b = a;
  b.results = {test::sample_result("p9", "p9.py", Status::ok, {1, 1, 1}, {1, 1, 1}, {1, 1, 1})};
  b.planned_jobs = 3;  // interrupted
  b.environment["torch"] = "2.12.0";
  CHECK_THROWS_AS(merge_reports({{"a", a}, {"b", b}}, false), InputError);
  const auto merged = merge_reports({{"a", a}, {"b", b}}, true);
  CHECK(merged.results.size() == 5);
  CHECK(results_json(merged)["complete"] == false);
}

TEST_CASE("shards built apart: the merged file counts each build's results; one build writes no count") {
  RunReport a = test::sample_report();
  RunReport b = test::sample_report();
  for (auto& r : b.results) r.job.problem_id += "_b";
  a.run.git_commit = b.run.git_commit = "1111111";
  CHECK_FALSE(results_json(merge_reports({{"a", a}, {"b", b}}, false)).contains("measured_by"));
  b.run.git_commit = "2222222-dirty";
  const auto merged = results_json(merge_reports({{"a", a}, {"b", b}}, false));
  CHECK(merged["git_commit"] == "1111111");
  CHECK(merged["measured_by"] == nlohmann::json{{"1111111", a.results.size()}, {"2222222-dirty", b.results.size()}});
}

// Issue 17, defect 4.
TEST_CASE("merge refuses runs of two suites unless told") {
  RunReport a = test::sample_report();
  RunReport b = test::sample_report();
  b.suite_name = "another-suite";
  for (auto& r : b.results) r.job.problem_id += "_b";
  CHECK_THROWS_AS(merge_reports({{"a", a}, {"b", b}}, false), InputError);
  CHECK(merge_reports({{"a", a}, {"b", b}}, false, true).results.size() == 2 * a.results.size());
}

// Issue 17, defect 10: `merge -o -` is stdout, as docs/cli.md now says.
TEST_CASE("merge -o - writes the merged JSON to stdout and the summary to stderr") {
  test::TempDir dir;
  const auto a = dir.write("a.json", results_json(test::sample_report()).dump(2));
  const auto out_file = dir.path() / "stdout.json", err_file = dir.path() / "stderr.txt";
  const auto out = test::run_kbench("merge " + a.string() + " -o - >" + out_file.string() + " 2>" +
                                    err_file.string() + "; exit $?");
  CHECK(out.exit_code == 0);
  std::stringstream err;
  err << std::ifstream(err_file).rdbuf();
  CHECK(err.str().find("pass@1") != std::string::npos);
  const auto json = nlohmann::json::parse(std::ifstream(out_file));
  CHECK(json["results"].size() == test::sample_report().results.size());
}
