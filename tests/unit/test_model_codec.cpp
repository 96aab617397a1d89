// The model codec (lib/model/codec.hpp): every type round-trips through every boundary (job
// file, worker frame, results entry, journal line, run metadata), and bad input is one
// CodecError naming the JSON path of the field.
#include <cmath>

#include "catch.hpp"
#include "model/codec.hpp"
#include "sample_report.hpp"

using namespace kbench;

namespace {

Job full_job() {
  Job job;
  job.problem_id = "p";
  job.problem_file = "/x/p.py";
  job.level = 2;
  job.tags = {"a", "b"};
  job.candidate = "c.py";
  job.candidate_file = "/x/c.py";
  job.device = cuda_device(1);
  job.settings.dtype = "bfloat16";
  job.settings.seeds = 3;
  job.settings.timing.min_samples = 9;
  job.settings.timing.preset = TimingPreset::rl;
  job.settings.timing.mode = TimingMode::graph;
  job.timing = resolve_timing(job.settings.timing, DeviceKind::cuda);
  job.settings.baselines = {"eager"};
  job.settings.inductor_mode = "max-autotune";
  job.settings.timeout_s = 90;
  job.settings.compile_timeout_s = 30;
  job.settings.run_timeout_s = 60;
  job.settings.build_timeout_s = 120;
  job.settings.memory_limit_gb = 8;
  job.settings.output_cap_mb = 2;
  job.settings.file_size_limit_gb = 1;
  job.settings.atol = 0.1;
  job.settings.checks = CheckLevel::standard;
  job.settings.require_custom_kernel = true;
  job.settings.min_custom_kernel_share = 0.7;
  job.settings.flag_speedup_above = 12;
  job.settings.alt_inputs = false;
  job.settings.skip_checks = {"forbidden_api"};
  job.size_overrides = {{"N", 3}};
  job.alt_size_overrides = {{"N", 5}};
  CandidateOrigin origin;
  origin.sample = 2;
  origin.turn = 1;
  origin.model = "m";
  origin.request = "abc";
  origin.choices_in_request = 4;
  origin.from_cache = true;
  origin.usage.prompt = 10;
  origin.usage.completion = 20;
  origin.cost_usd = 0.25;
  origin.reply_file = "/out/reply.md";
  origin.extraction = "last python block";
  job.origin = origin;
  return job;
}

// The message of the CodecError `read` throws; "" when it accepts.
template <typename Read>
std::string codec_error(Read read) {
  try {
    read();
  } catch (const CodecError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a job round-trips through the job file") {
  const Job job = full_job();
  const Job back = job_from_json(to_json(job));
  CHECK(to_json(back) == to_json(job));
  CHECK(back.device == cuda_device(1));
  CHECK(back.timing.mode == TimingMode::graph);
  CHECK(back.timing.min_samples == 9);
  CHECK(back.timing.preset == TimingPreset::rl);
  CHECK(back.timing.max_time_s == 1.0);  // the rl preset's CUDA value, resolved at planning
  CHECK(back.settings.skip_checks == std::vector<std::string>{"forbidden_api"});
  REQUIRE(back.origin);
  CHECK(back.origin->cost_usd == 0.25);
  CHECK(back.origin->usage.completion == 20);
  CHECK(to_json(*back.origin) == to_json(*job.origin));
  // The job file is part of every journal key: the CPU job of a default Job writes the CPU
  // defaults, not unset fields.
  const auto cpu = to_json(Job{});
  CHECK(cpu["device"] == "cpu");
  CHECK(cpu["settings"]["timing"]["min_samples"] == 10);
}

TEST_CASE("a bad job file names the field") {
  const auto good = to_json(full_job());
  auto refuses = [&](nlohmann::json j, const std::string& expected) {
    const auto error = codec_error([&] { job_from_json(j); });
    INFO(error);
    CHECK(error.find(expected) != std::string::npos);
  };
  auto j = good;
  j.erase("problem_id");
  refuses(j, "job: missing 'problem_id'");
  j = good;
  j["level"] = "2";
  refuses(j, "job.level: unexpected type string, expected a number");
  j = good;
  j["level"] = 2.5;
  refuses(j, "job.level: must be an integer in [1, 1000], got 2.5");
  j = good;
  j["device"] = "gpu";
  refuses(j, "job.device: 'gpu' is not a device");
  j = good;
  j["settings"]["timeout_s"] = std::numeric_limits<double>::infinity();
  refuses(j, "job.settings.timeout_s: is infinite");
  j = good;
  j["settings"]["atol"] = std::nan("");
  refuses(j, "job.settings.atol: is not a number (NaN)");
  j = good;
  j["settings"]["timing"]["mode"] = "warm";
  refuses(j, "job.settings.timing.mode: 'warm' is not a timing mode");
  j = good;
  j["settings"]["timing"]["preset"] = "quick";
  refuses(j, "job.settings.timing.preset: 'quick' is not a timing preset");
  j["settings"]["timing"].erase("preset");  // a job file from before presets: full
  CHECK(job_from_json(j).timing.preset == TimingPreset::full);
  j["settings"]["timing"]["input_sets"] = 0;
  refuses(j, "job.settings.timing.input_sets: must be an integer in [1, 1024], got 0");
  j = good;
  j["settings"]["checks"] = "lax";
  refuses(j, "job.settings.checks: 'lax' is not a check level");
  j = good;
  j["settings"]["tags"] = 1;  // unknown keys are ignored; known ones are checked
  j["tags"] = {"a", 3};
  refuses(j, "job.tags[1]: unexpected type number, expected a string");
  j = good;
  j["origin"]["turn"] = 0;
  refuses(j, "job.origin.turn: must be an integer in [1, 1000000], got 0");
  CHECK(codec_error([&] { job_from_json(nlohmann::json::array()); }).find("expected an object") !=
        std::string::npos);
}

TEST_CASE("a result round-trips through the worker frame") {
  const JobResult sent = test::sample_report().results.at(0);
  JobResult received;
  received.job = sent.job;
  apply_worker_message(worker_message(sent), received);
  CHECK(received.status == sent.status);
  CHECK(received.message == sent.message);
  CHECK(received.diagnostics == sent.diagnostics);
  CHECK(received.protocol == sent.protocol);
  REQUIRE(received.timings.size() == sent.timings.size());
  for (const auto& [name, m] : sent.timings) {
    const auto& r = received.timings.at(name);
    CHECK(r.samples_ms == m.samples_ms);
    CHECK(r.rounds == m.rounds);
    CHECK(r.timer == m.timer);
    CHECK(r.mode == m.mode);
    CHECK(r.stats.median == m.stats.median);  // derived again on arrival
  }
  CHECK(received.speedups.at("eager").value == sent.speedups.at("eager").value);
  // The frame carries raw data only: no statistic leaves the worker.
  CHECK(!worker_message(sent)["timings"]["candidate"].contains("median_ms"));
}

TEST_CASE("a result round-trips through the results entry and the journal line") {
  for (const auto& r : test::sample_report().results) {
    const auto entry = result_json(r);
    const JobResult back = result_from_json(entry, "results[0]", cpu_device());
    CHECK(result_json(back) == entry);
    const auto line = journal_line_from_json(journal_line_json(7, "k", r, "0123abc"), "journal:2");
    CHECK(line.index == 7);
    CHECK(line.key == "k");
    CHECK(line.commit == "0123abc");
    CHECK(result_json(result_from_json(line.result, "journal:2", cpu_device())) == entry);
  }
  // A generated candidate's origin and a schedule on another device come back too.
  JobResult r = test::sample_report().results.at(0);
  r.job.origin = full_job().origin;
  r.schedule = ScheduleInfo{3, cuda_device(2), 10.5, 11.5};
  const JobResult back = result_from_json(result_json(r), "r", every_cuda_device());
  CHECK(back.schedule->device == cuda_device(2));
  CHECK(back.job.device == every_cuda_device());
  CHECK(back.job.origin->model == "m");
  CHECK(result_label(result_json(r)) == "p1 / p1_triton.py");
  CHECK(result_label(nlohmann::json::object()) == "? / ?");
}

TEST_CASE("one rule set for measurements, whichever boundary they cross") {
  const JobResult sample = test::sample_report().results.at(0);
  auto frame = worker_message(sample);
  auto entry = result_json(sample);
  auto both = [&](auto edit, const std::string& expected) {
    auto f = frame;
    auto e = entry;
    edit(f["timings"]["candidate"]);
    edit(e["timings"]["candidate"]);
    JobResult ignored;
    const auto from_frame = codec_error([&] { apply_worker_message(f, ignored); });
    const auto from_file = codec_error([&] { result_from_json(e, "results[0]", cpu_device()); });
    INFO(from_frame << " | " << from_file);
    CHECK(from_frame == "frame.timings.candidate" + expected);
    CHECK(from_file == "results[0].timings.candidate" + expected);
  };
  both([](nlohmann::json& m) { m["samples_ms"][0] = -1.0; },
       ".samples_ms[0]: must be a number in [0, 1000000000], got -1");
  both([](nlohmann::json& m) { m["samples_ms"][1] = 1e308; },
       ".samples_ms[1]: must be a number in [0, 1000000000], got 1e+308");
  both([](nlohmann::json& m) { m["samples_ms"] = nlohmann::json::array(); }, ".samples_ms: empty");
  both([](nlohmann::json& m) { m["samples_ms"] = "fast"; },
       ".samples_ms: unexpected type string, expected an array");
  both([](nlohmann::json& m) { m["statistic"] = "max"; }, ".statistic: 'max' is not median or mean");
  both([](nlohmann::json& m) { m["rounds"] = {0}; }, ": rounds and samples_ms differ in length");
  both([](nlohmann::json& m) { m["calls_per_sample"] = -3; },
       ".calls_per_sample: must be an integer in [0, 1000000000], got -3");
  both([](nlohmann::json& m) { m.erase("timer"); }, ": missing 'timer'");
  // Fields with a default may be absent in both: a frame of samples only is a valid frame.
  auto f = frame;
  f["timings"]["candidate"] = {{"timer", "host_clock"}, {"samples_ms", {1.0, 2.0, 3.0}}};
  JobResult received;
  apply_worker_message(f, received);
  CHECK(received.timings.at("candidate").rounds == std::vector<int>{0, 0, 0});
  CHECK(received.timings.at("candidate").statistic == "median");
}

TEST_CASE("bad frames and results name the field") {
  const JobResult sample = test::sample_report().results.at(0);
  JobResult ignored;
  auto frame = worker_message(sample);
  frame["status"] = "great";
  CHECK(codec_error([&] { apply_worker_message(frame, ignored); }) == "frame.status: unknown status 'great'");
  frame = worker_message(sample);
  frame["diagnostics"] = "none";
  CHECK(codec_error([&] { apply_worker_message(frame, ignored); }) ==
        "frame.diagnostics: unexpected type string, expected an object");
  auto entry = result_json(sample);
  entry["schedule"]["device"] = "tpu:0";
  CHECK(codec_error([&] { result_from_json(entry, "results[4]", cpu_device()); }) ==
        "results[4].schedule.device: 'tpu:0' is not a device (cpu, cuda, cuda:N)");
  entry = result_json(sample);
  entry["wall_s"] = -1;
  CHECK(codec_error([&] { result_from_json(entry, "results[4]", cpu_device()); }) ==
        "results[4].wall_s: must be a number in [0, 1000000000], got -1");
  CHECK(codec_error([&] { journal_line_from_json({{"index", -1}, {"result", {}}}, "j:3"); }) ==
        "j:3.index: expected a non-negative integer, got -1");
}

TEST_CASE("the run's metadata round-trips; a 1.0 file reads as unknown") {
  const RunInfo run = test::sample_report().run;
  nlohmann::json file = nlohmann::json::object();
  write_run_info(run, file);
  const RunInfo back = read_run_info(JsonFields(file, ""));
  CHECK(back.command_line == run.command_line);
  CHECK(back.kbench_version == run.kbench_version);
  CHECK(back.git_commit == run.git_commit);
  CHECK(back.started_at == run.started_at);
  CHECK(back.finished_at == run.finished_at);
  RunInfo running = run;
  running.finished_at.clear();
  write_run_info(running, file);
  CHECK(file["finished_at"].is_null());
  CHECK(read_run_info(JsonFields(file, "")).finished_at.empty());
  const RunInfo old = read_run_info(JsonFields({{"started_at", "2026-01-01T00:00:00Z"}, {"kbench_version", "0.1.0"}}, ""));
  CHECK(old.git_commit == "unknown");
  CHECK(old.command_line.empty());
  CHECK(old.finished_at.empty());
  file["command_line"] = {"kbench", 1};
  CHECK(codec_error([&] { read_run_info(JsonFields(file, "")); }) ==
        "command_line[1]: unexpected type number, expected a string");
}

TEST_CASE("this build knows its commit and records its command line") {
  const std::string commit = build_git_commit();
  CHECK((commit == "unknown" || commit.find_first_not_of("0123456789abcdef-dirty") == std::string::npos));
  const char* argv[] = {"kbench", "run", "s.yaml"};
  record_command_line(3, argv);
  const RunInfo run = current_run_info();
  CHECK(run.command_line == std::vector<std::string>{"kbench", "run", "s.yaml"});
  CHECK(run.git_commit == commit);
  CHECK(run.started_at.size() == 20);
  CHECK(run.finished_at.empty());
}

TEST_CASE("the --validate frame round-trips, and a malformed one names its JSON path") {
  ProblemReport report;
  report.checks = {{"runs", true, "output (8, 16) torch.float32"}, {"not_zeros", false, "zeros pass"}};
  report.peak_device_memory_bytes = 1u << 20;
  report.peak_rss_bytes = 123456;
  const ProblemReport back = problem_report_from_json(to_json(report), "frame");
  REQUIRE(back.checks.size() == 2);
  CHECK(back.checks[1].name == "not_zeros");
  CHECK_FALSE(back.checks[1].ok);
  CHECK(back.checks[0].detail == "output (8, 16) torch.float32");
  CHECK(back.peak_device_memory_bytes == report.peak_device_memory_bytes);
  CHECK(back.peak_rss_bytes == 123456);
  CHECK_FALSE(back.error);

  ProblemReport failed;
  failed.error = "ImportError: no module named foo";
  CHECK(problem_report_from_json(to_json(failed), "frame").error == failed.error);
  // On the CPU the device peak is null.
  CHECK_FALSE(problem_report_from_json(nlohmann::json::parse(R"({"checks": [], "peak_memory_bytes": null})"), "f")
                  .peak_device_memory_bytes);

  const auto bad = nlohmann::json::parse(R"({"checks": [{"name": "runs", "ok": "yes"}]})");
  std::string message;
  try {
    problem_report_from_json(bad, "frame");
  } catch (const CodecError& e) {
    message = e.what();
  }
  CHECK(message.find("frame.checks[0].ok") != std::string::npos);
  CHECK_THROWS_AS(problem_report_from_json(nlohmann::json::parse(R"({"checks": 3})"), "frame"), CodecError);
}
