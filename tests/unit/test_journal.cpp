// The run journal: lines read back exactly, a torn last line is dropped, another plan is refused.
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "error_of.hpp"
#include "report/results_json.hpp"
#include "model/codec.hpp"
#include "model/run_info.hpp"
#include "run/journal.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::error_of;

namespace {

struct Plan {
  test::TempDir dir;
  std::vector<Job> jobs;
  std::vector<std::string> keys;
  JournalHeader header;
  Plan() {
    const auto problem = dir.write("p.py", "N = 4\n");
    for (int i = 0; i < 3; ++i) {
      Job job;
      job.problem_id = "p";
      job.problem_file = problem;
      job.candidate = "c" + std::to_string(i) + ".py";
      job.candidate_file = dir.write(job.candidate, "# candidate " + std::to_string(i) + "\n");
      job.device = cpu_device();
      jobs.push_back(job);
    }
    keys = job_keys(jobs);
    header = {"suite.yaml", cpu_device(), plan_fingerprint(cpu_device(), keys), jobs.size(), "2026-11-30T18:00:00Z"};
  }
  [[nodiscard]] std::filesystem::path file() const { return dir.path() / "r.json.journal.jsonl"; }
};

JobResult sample_result(const Job& job, double sample) {
  JobResult r;
  r.job = job;
  r.status = Status::ok;
  r.wall_s = 1.25;
  Measurement m;
  m.timer = "host_clock";
  m.mode = "cold";
  m.samples_ms = {sample, sample * 1.01, sample * 0.99, sample * 1.02};
  m.rounds = {0, 1, 2, 3};
  r.timings["candidate"] = m;
  r.timings["eager"] = m;
  r.protocol = {{"rounds", 4}};
  r.schedule = ScheduleInfo{1, cpu_device(), 1764525600.25, 1764525601.5};
  derive_statistics(r);
  return r;
}


std::string read_all(const std::filesystem::path& file) {
  std::stringstream s;
  s << std::ifstream(file).rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("journaled results read back identical, in completion order, with their plan index") {
  Plan plan;
  const JobResult second = sample_result(plan.jobs[2], 0.5);
  const JobResult first = sample_result(plan.jobs[0], 0.25);
  {
    Journal journal(plan.file(), plan.header, plan.keys);
    journal.append(2, second);
    journal.append(0, first);
  }
  const std::string before = read_all(plan.file());
  std::vector<JournalEntry> done;
  std::string started_at;
  Journal resumed = Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, done, started_at);
  CHECK(started_at == plan.header.started_at);
  REQUIRE(done.size() == 2);
  CHECK(done[0].index == 2);
  CHECK(done[1].index == 0);
  CHECK(result_json(done[0].result) == result_json(second));
  CHECK(result_json(done[1].result) == result_json(first));
  REQUIRE(done[0].result.schedule);
  CHECK(done[0].result.schedule->slot == 1);
  CHECK(done[0].commit == build_git_commit());  // the build that measured it
  // Appending keeps what was there byte for byte.
  resumed.append(1, sample_result(plan.jobs[1], 0.75));
  const std::string after = read_all(plan.file());
  CHECK(after.substr(0, before.size()) == before);
  CHECK(std::count(after.begin(), after.end(), '\n') == 4);
}

TEST_CASE("a torn last line is dropped and cut off before appending") {
  Plan plan;
  {
    Journal journal(plan.file(), plan.header, plan.keys);
    journal.append(0, sample_result(plan.jobs[0], 0.25));
  }
  const std::string complete = read_all(plan.file());
  std::ofstream(plan.file(), std::ios::app) << R"({"index": 1, "key": "abc", "resu)";
  std::vector<JournalEntry> done;
  std::string started_at;
  Journal resumed = Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, done, started_at);
  REQUIRE(done.size() == 1);
  CHECK(done[0].index == 0);
  CHECK(read_all(plan.file()) == complete);
  resumed.append(1, sample_result(plan.jobs[1], 0.5));
  std::vector<JournalEntry> again;
  Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, again, started_at);
  CHECK(again.size() == 2);
}

TEST_CASE("resume refuses another plan, a damaged line, a duplicate job and a missing journal") {
  Plan plan;
  {
    Journal journal(plan.file(), plan.header, plan.keys);
    journal.append(0, sample_result(plan.jobs[0], 0.25));
  }
  std::vector<JournalEntry> done;
  std::string started_at;
  auto resume = [&](const JournalHeader& header, const std::vector<Job>& jobs) {
    done.clear();
    Journal::resume(plan.file(), header, jobs, job_keys(jobs), done, started_at);
  };
  SECTION("a candidate file changed") {
    std::ofstream(plan.jobs[1].candidate_file) << "# edited\n";
    auto header = plan.header;
    header.plan = plan_fingerprint(cpu_device(), job_keys(plan.jobs));
    const auto error = error_of([&] { resume(header, plan.jobs); });
    CHECK(error.find("another plan") != std::string::npos);
    // Job 1 has not finished: the message says an unfinished job changed (issue 17, defect 10).
    CHECK(error.find("What changed: a job not yet finished") != std::string::npos);
  }
  SECTION("a setting changed") {
    auto jobs = plan.jobs;
    jobs[0].settings.timeout_s += 1;
    auto header = plan.header;
    header.plan = plan_fingerprint(cpu_device(), job_keys(jobs));
    // Job 0 finished under the old settings: the message names it.
    const auto error = error_of([&] { resume(header, jobs); });
    CHECK(error.find("What changed: " + jobs[0].problem_id + " / " + jobs[0].candidate +
                     " (its problem or candidate file, or its settings, changed)") != std::string::npos);
  }
  SECTION("another device") {
    auto header = plan.header;
    header.device = cuda_device(0);
    const auto error = error_of([&] { resume(header, plan.jobs); });
    CHECK(error.find("another plan") != std::string::npos);
    CHECK(error.find("the device (was cpu, now cuda:0)") != std::string::npos);
  }
  SECTION("a damaged line in the middle") {
    std::ofstream(plan.file(), std::ios::app) << "not json\n" << R"({"index": 1})" << "\n";
    CHECK(error_of([&] { resume(plan.header, plan.jobs); }).find(":3: not a JSON line") != std::string::npos);
  }
  SECTION("a job recorded twice") {
    {
      std::vector<JournalEntry> ignored;
      Journal journal = Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, ignored, started_at);
      journal.append(0, sample_result(plan.jobs[0], 0.25));
    }
    CHECK(error_of([&] { resume(plan.header, plan.jobs); }).find("recorded twice") != std::string::npos);
  }
  SECTION("a value of the wrong type") {
    std::ofstream(plan.file(), std::ios::app) << R"({"index": 1, "key": 7, "result": {}})" << "\n";
    CHECK(error_of([&] { resume(plan.header, plan.jobs); }).find("damaged") != std::string::npos);
  }
  SECTION("not a journal") {
    std::ofstream(plan.file()) << R"({"kbench_journal": "one"})" << "\n";
    CHECK(error_of([&] { resume(plan.header, plan.jobs); }).find("damaged") != std::string::npos);
  }
  SECTION("no journal") {
    std::filesystem::remove(plan.file());
    CHECK(error_of([&] { resume(plan.header, plan.jobs); }).find("no journal to resume") != std::string::npos);
  }
}

TEST_CASE("job keys change with the candidate's content and settings, not with nothing") {
  Plan plan;
  CHECK(job_keys(plan.jobs) == plan.keys);
  CHECK(plan.keys[0] != plan.keys[1]);
  auto jobs = plan.jobs;
  jobs[2].settings.seeds += 1;
  CHECK(job_key(jobs[2]) != plan.keys[2]);
  CHECK(plan_fingerprint(cpu_device(), plan.keys) != plan_fingerprint(every_cuda_device(), plan.keys));
  CHECK(default_journal_path("out/r.json") == std::filesystem::path("out/r.json.journal.jsonl"));
}

TEST_CASE("jobs pushed after the plan are journaled under their key and come back by key") {
  Plan plan;
  // A plan of the first job; the other two pushed while the run went (an agent's later turns).
  const std::vector<Job> first(plan.jobs.begin(), plan.jobs.begin() + 1);
  const auto first_keys = job_keys(first);
  JournalHeader header{"suite.yaml", cpu_device(), plan_fingerprint(cpu_device(), first_keys), 1, "2026-12-01T12:00:00Z"};
  const JobResult pushed = sample_result(plan.jobs[2], 0.5);
  {
    Journal journal(plan.file(), header, first_keys);
    journal.append(0, sample_result(plan.jobs[0], 0.25));
    journal.append(1, job_key(plan.jobs[2]), pushed);
  }
  std::vector<JournalEntry> done, later;
  std::string started_at;
  Journal::resume(plan.file(), header, first, first_keys, done, later, started_at);
  REQUIRE(done.size() == 1);
  CHECK(done[0].index == 0);
  REQUIRE(later.size() == 1);
  CHECK(later[0].key == job_key(plan.jobs[2]));
  CHECK(later[0].index == 1);
  CHECK(result_json(later[0].result) == result_json(pushed));
  // A run that pushes nothing refuses such a journal; a pushed key twice is damage.
  CHECK(error_of([&] { Journal::resume(plan.file(), header, first, first_keys, done, started_at); })
            .find("does not match this run's plan") != std::string::npos);
  std::ofstream(plan.file(), std::ios::app)
      << nlohmann::json{{"index", 2}, {"key", job_key(plan.jobs[2])}, {"result", result_json(pushed)}}.dump() << "\n";
  CHECK(error_of([&] { Journal::resume(plan.file(), header, first, first_keys, done, later, started_at); })
            .find("recorded twice") != std::string::npos);
}

TEST_CASE("a generated candidate's key leaves out from_cache: the resumed run replays from the cache") {
  Plan plan;
  Job job = plan.jobs[0];
  job.origin = CandidateOrigin{};
  job.origin->model = "m";
  const std::string fresh = job_key(job);
  job.origin->from_cache = true;
  CHECK(job_key(job) == fresh);
  job.origin->turn = 2;
  CHECK(job_key(job) != fresh);
}

TEST_CASE("a journal line nested too deeply is one clear error, and the journal is kept") {
  Plan plan;
  {
    Journal journal(plan.file(), plan.header, plan.keys);
    journal.append(0, sample_result(plan.jobs[0], 0.25));
  }
  // 100,000 levels: deep enough to overflow the stack of a recursive reader or destructor.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const auto& line : {R"({"index": 1, "key": "k", "result": )" + deep + "}",
                           R"({"index": 1, "result": {"problem": )" + deep + "}}"}) {
    std::ofstream(plan.file(), std::ios::app) << line << "\n";
    const std::string before = read_all(plan.file());
    std::vector<JournalEntry> done;
    std::string started_at;
    const auto error = error_of([&] { Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, done, started_at); });
    CHECK(error.find("r.json.journal.jsonl:3: not a JSON line") != std::string::npos);
    CHECK(error.find("nested deeper than 64 levels") != std::string::npos);
    CHECK(read_all(plan.file()) == before);  // nothing lost, nothing cut
    // The plan-change report reads every line too: another plan still gets its refusal.
    auto other = plan.header;
    other.device = cuda_device(0);
    CHECK(error_of([&] { Journal::resume(plan.file(), other, plan.jobs, plan.keys, done, started_at); })
              .find("another plan") != std::string::npos);
    std::filesystem::resize_file(plan.file(), before.size() - line.size() - 1);
  }
}

TEST_CASE("a line measured by another build resumes with that build named; a line older than the commit field reads unknown") {
  Plan plan;
  {
    Journal journal(plan.file(), plan.header, plan.keys);
    journal.append(0, sample_result(plan.jobs[0], 0.25));
  }
  // Two lines as other builds wrote them: one of another commit, one from before lines had one.
  auto other = journal_line_json(1, plan.keys[1], sample_result(plan.jobs[1], 0.5), "00000000abcdef-dirty");
  auto older = journal_line_json(2, plan.keys[2], sample_result(plan.jobs[2], 0.75), "");
  older.erase("commit");
  std::ofstream(plan.file(), std::ios::app) << other.dump() << "\n" << older.dump() << "\n";
  std::vector<JournalEntry> done;
  std::string started_at;
  (void)Journal::resume(plan.file(), plan.header, plan.jobs, plan.keys, done, started_at);
  REQUIRE(done.size() == 3);
  CHECK(done[0].commit == build_git_commit());
  CHECK(done[1].commit == "00000000abcdef-dirty");
  CHECK(done[2].commit == "unknown");
}
