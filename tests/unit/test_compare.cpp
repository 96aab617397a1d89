// kbench compare: A/A gives no regression, a planted slowdown is found, status changes are
// listed, environments must match; and the CLI's exit codes.
#include <fstream>

#include "catch.hpp"
#include "compare_fixtures.hpp"
#include "core/error.hpp"
#include "report/compare.hpp"
#include "report/compare_render.hpp"
#include "report/results_json.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {
const PairChange& find(const Comparison& c, const std::string& candidate) {
  for (const auto& p : c.pairs)
    if (p.candidate == candidate) return p;
  throw std::runtime_error("no pair " + candidate);
}
}  // namespace

TEST_CASE("A/A: a report compared with itself has no regression") {
  const auto report = test::noisy_report(1);
  const Comparison c = compare_reports(report, "a", report, "a");
  CHECK(c.baseline == "inductor");
  CHECK_FALSE(has_regression(c, 5));
  CHECK_FALSE(has_regression(c, 0));
  const auto& p1 = find(c, "p1_triton.py");
  CHECK(p1.kind == PairKind::compared);
  CHECK(*p1.time_ratio == Approx(1.0));
  CHECK(*p1.verdict == SpeedupVerdict::same);
  CHECK(*p1.speedup_change == Approx(1.0));
  CHECK(find(c, "p2_wrong.py").kind == PairKind::still_failing);
}

TEST_CASE("A/A: samples re-drawn from the same distribution are not a regression") {
  const Comparison c = compare_reports(test::noisy_report(1), "a", test::noisy_report(101), "b");
  CHECK_FALSE(has_regression(c, 5));
  for (const auto& p : c.pairs) {
    if (p.kind != PairKind::compared) continue;
    INFO(p.candidate << " ratio " << *p.time_ratio);
    CHECK(*p.verdict == SpeedupVerdict::same);  // +-2% noise, 60 rounds: the CI is well inside 2%
  }
}

TEST_CASE("a planted 10% slowdown is SLOWER and fails --fail-on-regression 5") {
  const Comparison c = compare_reports(test::noisy_report(1), "a", test::noisy_report(101, 1.10), "b");
  const auto& p1 = find(c, "p1_triton.py");
  CHECK(*p1.verdict == SpeedupVerdict::slower);
  CHECK(*p1.time_ratio == Approx(1.10).epsilon(0.02));
  CHECK(p1.time_ratio_ci->low > 1.05);
  CHECK(*p1.speedup_change < 0.95);
  CHECK(is_regression(p1, 5));
  CHECK_FALSE(is_regression(p1, 20));  // a 10% slowdown is below a 20% threshold
  CHECK(has_regression(c, 5));
  // The reverse direction is FASTER, not a regression.
  const Comparison back = compare_reports(test::noisy_report(101, 1.10), "b", test::noisy_report(1), "a");
  CHECK(*find(back, "p1_triton.py").verdict == SpeedupVerdict::faster);
  CHECK_FALSE(has_regression(back, 5));
}

TEST_CASE("newly failing, newly passing, added and removed are listed") {
  const auto base = test::sample_report();
  auto next = test::sample_report();
  next.results[0].status = Status::mismatch;  // p1 breaks
  next.results[2] = test::sample_result("p2", "p2_wrong.py", Status::ok, {1, 1, 1}, {2, 2, 2}, {2, 2, 2});
  next.results.pop_back();                    // p3 removed
  next.results.push_back(test::sample_result("p4", "p4.py", Status::ok, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}));
  const Comparison c = compare_reports(base, "a", next, "b");
  CHECK(find(c, "p1_triton.py").kind == PairKind::newly_failing);
  CHECK(find(c, "p2_wrong.py").kind == PairKind::newly_passing);
  CHECK(find(c, "p3_triton.py").kind == PairKind::removed);
  CHECK(find(c, "p4.py").kind == PairKind::added);
  CHECK(has_regression(c, 50));  // newly failing fails at any threshold
  const auto json = compare_json(c, 5.0);
  CHECK(json["regression"] == true);
  CHECK(json["summary"]["base"]["pass_at_1"] == c.base_summary.pass_at_1);
  const auto junit = compare_junit(c, 5.0);
  CHECK(junit.find("failures=\"1\"") != std::string::npos);
  CHECK(junit.find("newly-failing") != std::string::npos);
  CHECK(compare_markdown(c, 5.0).find("**Regression**") != std::string::npos);
  CHECK(compare_table(c, 5.0).find("newly_failing") != std::string::npos);
}

// Issue 11: compare's JUnit goes through the one writer and escaper (report/junit_xml,
// report/markup); its own escaper dropped nothing but let ' and control characters through.
TEST_CASE("compare --junit escapes candidate-controlled names and counts skipped pairs") {
  const auto base = test::sample_report();
  auto next = test::sample_report();
  next.results.push_back(
      test::sample_result("p'<&>", "it's \"x\"\x01.py", Status::ok, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}));
  const auto junit = compare_junit(compare_reports(base, "a", next, "b"), 5.0);
  CHECK(junit.find("classname=\"p&#39;&lt;&amp;&gt;\" name=\"it&#39;s &quot;x&quot;\xEF\xBF\xBD.py\"") !=
        std::string::npos);
  CHECK(junit.find("it's") == std::string::npos);
  CHECK(junit.find('\x01') == std::string::npos);
  CHECK(junit.find("<testsuite name=\"kbench compare\" tests=\"5\" failures=\"0\" errors=\"0\" skipped=\"1\">") !=
        std::string::npos);
  CHECK(junit.find("<skipped message=\"- -&gt; ok added\"/>") != std::string::npos);
}

TEST_CASE("different GPUs or torch versions are refused unless ignored") {
  const auto base = test::sample_report();
  auto next = test::sample_report();
  next.environment["torch"] = "2.12.0";
  CHECK_THROWS_AS(compare_reports(base, "a", next, "b"), InputError);
  CompareOptions ignore;
  ignore.ignore_env = true;
  CHECK_NOTHROW(compare_reports(base, "a", next, "b", ignore));
  next = test::sample_report();
  next.environment["device_name"] = "NVIDIA H100";
  CHECK_THROWS_AS(compare_reports(base, "a", next, "b"), InputError);
}

TEST_CASE("--baseline picks the speedup column; eager when Inductor was not timed") {
  CompareOptions eager;
  eager.baseline = "eager";
  const auto report = test::sample_report();
  CHECK(compare_reports(report, "a", report, "a", eager).baseline == "eager");
  auto no_inductor = report;
  for (auto& r : no_inductor.results) {
    r.timings.erase("inductor");
    derive_statistics(r);
  }
  CHECK(compare_reports(no_inductor, "a", no_inductor, "a").baseline == "eager");
}

namespace {
// Writes `report` as DIR/NAME, a results file for the binary.
std::string saved(const test::TempDir& dir, const std::string& name, const RunReport& report) {
  const auto file = (dir.path() / name).string();
  std::ofstream(file) << results_json(report).dump(2);
  return file;
}
}  // namespace

TEST_CASE("kbench compare exit codes: 0 no regression, 1 regression, 2 bad input") {
  test::TempDir dir;
  auto save = [&](const std::string& name, const RunReport& report) { return saved(dir, name, report); };
  const auto a = save("a.json", test::noisy_report(1));
  const auto a2 = save("a2.json", test::noisy_report(101));
  const auto slow = save("slow.json", test::noisy_report(101, 1.10));
  auto other_gpu = test::noisy_report(101);
  other_gpu.environment["device_name"] = "another GPU";
  const auto other = save("other.json", other_gpu);
  const auto junk = dir.write("junk.json", "{not json").string();

  auto same = test::run_kbench("compare " + a + " " + a2 + " --fail-on-regression 5");
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(same.output.find("p1_triton.py") != std::string::npos);

  const auto md = (dir.path() / "summary.md").string();
  auto regressed = test::run_kbench("compare " + a + " " + slow + " --fail-on-regression 5 --md " + md +
                                    " --junit -");
  INFO(regressed.output);
  CHECK(regressed.exit_code == 1);
  CHECK(regressed.output.find("SLOWER") != std::string::npos);
  CHECK(regressed.output.find("perf-regression") != std::string::npos);
  CHECK(std::filesystem::exists(md));
  // Without the flag a regression is reported but does not fail.
  CHECK(test::run_kbench("compare " + a + " " + slow).exit_code == 0);

  CHECK(test::run_kbench("compare " + a + " " + other + " --fail-on-regression 5").exit_code == 2);
  CHECK(test::run_kbench("compare " + a + " " + other + " --ignore-env").exit_code == 0);
  CHECK(test::run_kbench("compare " + a + " " + junk).exit_code == 2);
  CHECK(test::run_kbench("compare " + a + " " + (dir.path() / "missing.json").string()).exit_code == 2);
}

// Issue 17, defect 4: a gate judges every evaluation of BASE, or refuses (exit 2).
TEST_CASE("the regression gate refuses an incomplete NEW, another suite or another plan") {
  test::TempDir dir;
  auto save = [&](const std::string& name, const RunReport& report) { return saved(dir, name, report); };
  const auto base = save("base.json", test::noisy_report(1));
  auto partial = test::noisy_report(101);
  partial.results.resize(2);  // interrupted: 2 of 4
  const auto incomplete = save("incomplete.json", partial);
  auto renamed = test::noisy_report(101);
  renamed.suite_name = "another-suite";
  const auto other_suite = save("other_suite.json", renamed);
  auto fewer = test::noisy_report(101);
  fewer.results.pop_back();
  fewer.planned_jobs = fewer.results.size();  // complete, but of a smaller plan
  const auto other_plan = save("other_plan.json", fewer);

  const std::tuple<std::string, std::string, std::string> cases[] = {
      {incomplete, "incomplete run (2 of 4 evaluations)", "--allow-incomplete"},
      {other_suite, "is suite 'another-suite'", "--allow-suite-mismatch"},
      {other_plan, "the plans differ: 1 evaluation(s)", "--allow-plan-change"},
  };
  for (const auto& [next, expected, flag] : cases) {
    const auto gate = test::run_kbench("compare " + base + " " + next + " --fail-on-regression 5");
    INFO(gate.output);
    CHECK(gate.exit_code == 2);
    CHECK(gate.output.find(expected) != std::string::npos);
    CHECK(gate.output.find(flag) != std::string::npos);
    CHECK(gate.output.find("p1_triton.py") == std::string::npos);  // refused before the table
    // Allowed explicitly, the gate judges what both have; without a gate, the table is shown.
    const auto allowed = test::run_kbench("compare " + base + " " + next + " --fail-on-regression 5 " +
                                          (flag == "--allow-incomplete" ? flag + " --allow-plan-change" : flag));
    INFO(allowed.output);
    CHECK(allowed.exit_code == 0);
    CHECK(test::run_kbench("compare " + base + " " + next).exit_code == 0);
  }
}

// Issue 17, defect 10: CPU speedups are tiny; the table keeps their digits.
TEST_CASE("tiny speedups keep significant digits in the compare table") {
  RunReport slow = test::sample_report();
  slow.results[0] = test::sample_result("p1", "p1_triton.py", Status::ok, {400, 410, 420},
                                        {1.0, 1.0, 1.0}, {2.0, 2.0, 2.0});
  const auto c = compare_reports(slow, "a", slow, "a");
  const auto table = compare_table(c, std::nullopt);
  INFO(table);
  CHECK(table.find("0.00x") == std::string::npos);
  CHECK(table.find("0.00488x -> 0.00488x") != std::string::npos);  // vs Inductor, 2 / 410
}
