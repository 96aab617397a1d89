// RunSession with real CPU workers (the kbench binary): jobs pushed from the result callback
// while the session runs (the agent's pattern) come back once each, in the journal and in every
// report; a resumed session answers the same pushes from its journal without running a worker.
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "exec/interrupt.hpp"
#include "exec/worker_process.hpp"
#include "report/reporter_set.hpp"
#include "report/results_reader.hpp"
#include "run/journal.hpp"
#include "run/job_planning.hpp"
#include "run/run_session.hpp"
#include "suite/suite.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {

std::vector<nlohmann::json> journal_lines(const std::filesystem::path& file) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::size_t csv_rows(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line);) rows += line.empty() ? 0 : 1;
  return rows - 1;  // the header
}

// A session over quick.yaml's six jobs that starts with two and pushes the next one from each
// result's callback, closing once all six are in.
struct PushingRun {
  std::vector<Job> jobs;
  std::vector<std::size_t> indices;  // as the callback saw them
  std::vector<std::string> labels;   // problem/candidate of each callback
  std::size_t resumed = 0;
  RunReport report;

  // `build`: the commit this run says it is (the journal's lines name the one really built).
  PushingRun(const std::filesystem::path& dir, const std::filesystem::path& work_dir, bool resume,
             const std::string& build = build_git_commit()) {
    std::filesystem::create_directories(work_dir);
    const Suite suite = load_suite(test::kDataDir / "suites/quick.yaml");
    jobs = plan_jobs(suite, cpu_device());
    REQUIRE(jobs.size() == 6);
    const ReporterSet reporters({{"json", (dir / "r.json").string()}, {"csv", (dir / "r.csv").string()}});
    RunSession* running = nullptr;
    std::size_t next = 2;
    SessionSetup setup;
    setup.devices = {cpu_device()};
    setup.work_dir = work_dir;
    setup.jobs = 2;  // a push lands while the other slot's job still runs
    setup.journal_file = dir / "r.journal.jsonl";
    setup.resume = resume;
    setup.reporters = &reporters;
    setup.on_result = [&](std::size_t index, const JobResult& result, bool was_resumed) {
      indices.push_back(index);
      labels.push_back(result.job.problem_id + "/" + result.job.candidate);
      resumed += was_resumed ? 1 : 0;
      if (next < jobs.size()) running->push(jobs[next++]);
      if (labels.size() == jobs.size()) running->close();
    };
    RunReport header;
    header.suite_name = suite.name;
    header.suite_file = suite.file;
    header.device = cpu_device();
    header.run.started_at = utc_now_iso8601();
    header.run.git_commit = build;
    RunSession session(std::move(setup), header, {jobs[0], jobs[1]});
    running = &session;
    session.expect(jobs.size());
    report = session.run();
  }
};

}  // namespace

TEST_CASE("a running session takes jobs pushed from its result callback; each result once, journaled and reported") {
  reset_interrupts();
  set_worker_executable(test::kKbench);
  test::TempDir dir;
  const PushingRun run(dir.path(), dir.path() / "work", false);

  // Every job once, through the callback, with the index it was pushed under.
  CHECK(std::set<std::size_t>(run.indices.begin(), run.indices.end()) == std::set<std::size_t>{0, 1, 2, 3, 4, 5});
  CHECK(run.indices.size() == 6);
  CHECK(run.resumed == 0);
  REQUIRE(run.report.results.size() == 6);
  CHECK(run.report.planned_jobs == 6);
  std::map<std::string, int> seen;
  for (const auto& r : run.report.results) {
    ++seen[r.job.problem_id + "/" + r.job.candidate];
    INFO(r.job.candidate << ": " << r.message);
    CHECK(r.status == (r.job.candidate.find("add_one_ok") != std::string::npos ? Status::ok : Status::mismatch));
  }
  CHECK(seen.size() == 6);
  // The pushed jobs really overlapped a running one: a later job started before an earlier ended.
  bool overlapped = false;
  for (const auto& a : run.report.results)
    for (const auto& b : run.report.results)
      if (&a != &b && a.schedule && b.schedule && a.schedule->start_unix_s < b.schedule->end_unix_s &&
          b.schedule->start_unix_s < a.schedule->end_unix_s)
        overlapped = true;
  CHECK(overlapped);

  // The journal: the plan's header (two jobs), then six lines; the pushed ones under their key.
  const auto lines = journal_lines(dir.path() / "r.journal.jsonl");
  REQUIRE(lines.size() == 7);
  CHECK(lines[0]["planned"] == 2);
  std::set<std::size_t> journaled;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto index = lines[i]["index"].get<std::size_t>();
    journaled.insert(index);
    CHECK(lines[i]["key"] == job_key(run.jobs[index]));  // pushed in plan order: index i is jobs[i]
  }
  CHECK(journaled.size() == 6);

  // The reports: the results file complete with all six, the CSV with six rows.
  const RunReport written = read_results_file(dir.path() / "r.json");
  CHECK(written.results.size() == 6);
  CHECK(nlohmann::json::parse(std::ifstream(dir.path() / "r.json"))["complete"] == true);
  // One build measured everything: measured_by is counted but not written.
  CHECK(run.report.run.measured_by == std::map<std::string, std::size_t>{{build_git_commit(), 6}});
  CHECK_FALSE(nlohmann::json::parse(std::ifstream(dir.path() / "r.json")).contains("measured_by"));
  CHECK(csv_rows(dir.path() / "r.csv") == 6);

  SECTION("resumed: the same pushes are answered from the journal, no worker runs") {
    const auto work = dir.path() / "work-resumed";
    const PushingRun again(dir.path(), work, true);
    CHECK_FALSE(nlohmann::json::parse(std::ifstream(dir.path() / "r.json")).contains("measured_by"));
    CHECK(again.resumed == 6);
    CHECK(again.labels.size() == 6);
    REQUIRE(again.report.results.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) {
      CHECK(again.report.results[i].status == run.report.results[i].status);
      CHECK(again.report.results[i].job.candidate == run.report.results[i].job.candidate);
    }
    std::size_t job_dirs = 0;
    if (std::filesystem::exists(work))
      for (const auto& entry : std::filesystem::directory_iterator(work))
        job_dirs += entry.path().filename().string().rfind("job-", 0) == 0 ? 1 : 0;
    CHECK(job_dirs == 0);
    CHECK(journal_lines(dir.path() / "r.journal.jsonl").size() == 7);  // nothing journaled twice
  }
  SECTION("resumed by another build: its results keep the build that measured them") {
    const PushingRun again(dir.path(), dir.path() / "work-other", true, "ffff0000-dirty");
    CHECK(again.resumed == 6);
    CHECK(again.report.run.measured_by == std::map<std::string, std::size_t>{{build_git_commit(), 6}});
    const auto written = nlohmann::json::parse(std::ifstream(dir.path() / "r.json"));
    CHECK(written["git_commit"] == "ffff0000-dirty");
    CHECK(written["measured_by"] == nlohmann::json{{build_git_commit(), 6}});
    CHECK(read_results_file(dir.path() / "r.json").run.measured_by == again.report.run.measured_by);
  }
}
