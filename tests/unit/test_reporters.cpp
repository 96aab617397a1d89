// The report formats of `kbench run --json/--md/--html/--junit/--csv` (docs/reports.md).
// Golden files: regenerate with KBENCH_UPDATE_GOLDEN=1 ./test_reporters and review the diff.
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "report/report_formats.hpp"
#include "report/reporter_set.hpp"
#include "run/suite_runner.hpp"
#include "sample_report.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  const auto file = test::kGoldenDir / name;
  if (std::getenv("KBENCH_UPDATE_GOLDEN")) std::ofstream(file, std::ios::binary) << actual;
  REQUIRE(std::filesystem::exists(file));
  CHECK(actual == read(file));
}

std::string render(const std::string& format, const RunReport& report) {
  std::ostringstream out;
  make_reporter(format)->write(report, out);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The sample report with `n` copies of its results (problem ids made unique).
RunReport many_results(std::size_t n) {
  RunReport report = test::sample_report();
  const auto base = report.results;
  report.results.clear();
  for (std::size_t i = 0; report.results.size() < n; ++i)
    for (auto r : base) {
      if (report.results.size() == n) break;
      r.job.problem_id += "_" + std::to_string(i);
      report.results.push_back(r);
    }
  report.planned_jobs = n;
  return report;
}

}  // namespace

TEST_CASE("every format matches its golden file") {
  const auto report = test::sample_report();
  check_golden("results_sample.json", render("json", report));
  check_golden("report_sample.md", render("md", report));
  check_golden("report_sample.csv", render("csv", report));
  check_golden("report_sample.junit.xml", render("junit", report));
  check_golden("report_sample.html", render("html", report));
}

TEST_CASE("unknown formats are input errors") {
  CHECK_THROWS_AS(make_reporter("yaml"), InputError);
}

TEST_CASE("Markdown folds rows past 50 into <details>") {
  const auto small = markdown_report(test::sample_report());
  CHECK(small.find("<details>") == std::string::npos);
  CHECK(small.rfind("### kbench", 0) == 0);
  CHECK(small.find("pass@1") < small.find("| problem |"));  // summary first

  const auto big = markdown_report(many_results(60));
  REQUIRE(big.find("<details><summary>10 more results</summary>") != std::string::npos);
  CHECK(count(big, "</details>") == 1);
  // 50 rows before the fold, 10 inside it; each table has its header.
  const auto fold = big.find("<details>");
  CHECK(count(big.substr(0, fold), "\n| p") - 1 == 50);
  CHECK(count(big.substr(fold), "\n| p") - 1 == 10);
  CHECK(big.find("Truncated") == std::string::npos);
}

TEST_CASE("Markdown stays under its byte limit and says it was cut") {
  const auto report = many_results(5000);
  const auto full = markdown_report(report);
  CHECK(full.size() < (1u << 20));  // 5000 rows fit the real limit
  MarkdownLimits limits;
  limits.max_bytes = 8000;
  const auto cut = markdown_report(report, limits);
  CHECK(cut.size() <= limits.max_bytes);
  CHECK(cut.find("_Truncated: ") != std::string::npos);
  CHECK(cut.find("of 5000 results shown") != std::string::npos);
  CHECK(count(cut, "<details>") == count(cut, "</details>"));

  const auto huge = markdown_report(many_results(20000));
  CHECK(huge.size() <= (1u << 20));
  CHECK(huge.find("of 20000 results shown") != std::string::npos);
}

TEST_CASE("Markdown cells cannot break the table") {
  auto report = test::sample_report();
  report.results[2].message = "a | b\nsecond line <script>";
  const auto md = markdown_report(report);
  CHECK(md.find("a \\| b") != std::string::npos);
  CHECK(md.find("<script>") == std::string::npos);
}

TEST_CASE("CSV quotes a message with a comma, a quote and a newline (RFC 4180)") {
  auto report = test::sample_report();
  report.results[2].message = "bad, \"very\" bad\nline 2";
  const auto csv = csv_report(report);
  // then empty flags and p2's degenerate_reason (sample_report.hpp)
  CHECK(csv.find(",\"bad, \"\"very\"\" bad\nline 2\",,zeros pass it at the suite's tolerance\r\n") !=
        std::string::npos);
  CHECK(count(csv, "\r\n") == 5);  // header + 4 rows; the quoted newline is not a row end
  CHECK(csv.rfind("problem,candidate,level,tags,status,", 0) == 0);
}

TEST_CASE("JUnit counts failures and errors and maps statuses to types") {
  auto report = test::sample_report();
  report.results[0].status = Status::timeout;
  report.results[0].message = "timed out <after> 5 s & \"killed\"";
  const auto xml = junit_report(report);
  CHECK(xml.find("<testsuite name=\"sample\" tests=\"4\" failures=\"1\" errors=\"2\" skipped=\"0\" "
                 "time=\"6.000\"") != std::string::npos);
  CHECK(xml.find("<failure type=\"mismatch\"") != std::string::npos);
  CHECK(xml.find("<error type=\"crashed\"") != std::string::npos);
  CHECK(xml.find("<error type=\"timeout\" message=\"timed out &lt;after&gt; 5 s &amp; "
                 "&quot;killed&quot;\"") != std::string::npos);
  // A pass on a degenerate problem stays a pass; the reason is its test output.
  CHECK(xml.find("<testcase classname=\"p2\" name=\"p2_triton.py\" time=\"1.500\">\n      "
                 "<system-out>degenerate problem: zeros pass it") != std::string::npos);
  CHECK(xml.find("<property name=\"torch\" value=\"2.11.0\"/>") != std::string::npos);
  CHECK(count(xml, "<testcase ") == 4);
}

TEST_CASE("HTML holds three SVG charts, escapes text and references nothing outside") {
  auto report = test::sample_report();
  report.results[2].message = "<img src=x onerror=alert(1)>";
  const auto html = html_report(report);
  CHECK(count(html, "<svg ") == 3);
  CHECK(count(html, "<rect ") >= 6);
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("&lt;img src=x") != std::string::npos);
  // With no results yet (the first rewrite), the charts are still there.
  report.results.clear();
  CHECK(count(html_report(report), "<svg ") == 3);
}

TEST_CASE("ReporterSet rewrites files on every write and prints '-' only at finish") {
  test::TempDir dir;
  std::ostringstream out;
  const auto md = (dir.path() / "r.md").string(), csv = (dir.path() / "r.csv").string();
  ReporterSet set({{"md", md}, {"csv", csv}, {"junit", "-"}}, out);
  auto report = test::sample_report();
  report.results.resize(1);
  set.write(report);
  CHECK(read(md) == markdown_report(report));
  CHECK(out.str().empty());
  report = test::sample_report();
  set.write(report);
  CHECK(read(csv) == csv_report(report));
  CHECK(!std::filesystem::exists(csv + ".tmp"));
  CHECK(out.str().empty());
  set.finish(report);
  CHECK(out.str() == junit_report(report));
}

TEST_CASE("bad outputs fail in the constructor, before any work") {
  test::TempDir dir;
  CHECK_THROWS_AS(ReporterSet({{"html", (dir.path() / "missing" / "r.html").string()}}), InputError);
  CHECK_THROWS_AS(ReporterSet({{"pdf", (dir.path() / "r.pdf").string()}}), InputError);
  const auto same = (dir.path() / "r.txt").string();
  CHECK_THROWS_AS(ReporterSet({{"md", same}, {"csv", same}}), InputError);
  CHECK_NOTHROW(ReporterSet({{"md", "-"}, {"csv", "-"}}));
}

TEST_CASE("run_suite rejects a bad output path before it starts a worker") {
  test::TempDir dir;
  SuiteRunOptions options;
  options.suite_file = test::kDataDir / "suites" / "faults.yaml";
  options.device = "cpu";
  const auto bad = (dir.path() / "missing" / "r.xml").string();
  options.outputs = {{"junit", bad}};
  bool logged = false;
  options.log = [&](const std::string&) { logged = true; };
  try {
    run_suite(options);
    FAIL("run_suite accepted an output in a missing folder");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(bad) != std::string::npos);
  }
  CHECK(!logged);  // nothing started: the first log line comes after planning
}
