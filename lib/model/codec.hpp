#pragma once
// The one codec of the data model: every JSON form of Job, JobResult, Measurement and the run's
// metadata, for every boundary they cross. Reading follows one set of rules (json_fields.hpp):
// each failure is one CodecError naming the JSON path; callers add the source (file, frame) and
// choose the exit code. Formats: docs/results-format.md (results file, journal), docs/
// architecture.md (job file, worker frame).
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"
#include "model/kept_reference.hpp"
#include "model/json_fields.hpp"
#include "model/problem_report.hpp"
#include "model/run_info.hpp"

namespace kbench {

// The job file the controller writes for its worker (also the journal's job identity, so its
// bytes are part of every job key: change it only with a reason).
nlohmann::json to_json(const Job& job);
Job job_from_json(const nlohmann::json& json, const std::string& where = "job");

nlohmann::json to_json(const CandidateOrigin& origin);
CandidateOrigin candidate_origin_from_json(const nlohmann::json& json, const std::string& where = "generation");

// The worker's frame: status, message, diagnostics, protocol, raw samples.
nlohmann::json worker_message(const JobResult& result);
// Fills `result` from a worker frame, then derive_statistics(). Throws CodecError on a
// malformed frame (which the controller treats as tampering: status crashed).
void apply_worker_message(const nlohmann::json& message, JobResult& result);

// A measurement's raw part (samples, rounds, counts; no derived figure): in worker frames and
// kept reference records. The reader takes both this and the results file's form.
nlohmann::json raw_measurement_json(const Measurement& m);
Measurement measurement_from_json(const JsonFields& json);

// One entry of a results file's "results" (also a journal line's "result").
nlohmann::json result_json(const JobResult& result);
// The inverse: raw data only (statistics, CIs and speedups are recomputed from the samples).
// `device`: the run's, for results without a `schedule`. `where` prefixes error messages.
JobResult result_from_json(const nlohmann::json& json, const std::string& where, const Device& device);
// "problem / candidate" of a result entry, read leniently, for messages about damaged files.
std::string result_label(const nlohmann::json& json);

// A journal line: {"index", "key", "result"} (docs/results-format.md#journal).
struct JournalLine {
  std::size_t index = 0;
  std::string key;
  std::string commit;  // the build that measured it (RunInfo::git_commit); "unknown" in older journals
  nlohmann::json result;  // result_from_json() reads it once the key matched the plan
};
nlohmann::json journal_line_json(std::size_t index, const std::string& key, const JobResult& result,
                                 const std::string& commit);
JournalLine journal_line_from_json(const nlohmann::json& json, const std::string& where);

// The run's metadata, written at the results file's top level (kbench_version, git_commit,
// command_line, started_at, finished_at); fields a 1.0 file lacks read as their defaults.
void write_run_info(const RunInfo& run, nlohmann::json& results_file);
RunInfo read_run_info(const JsonFields& results_file);

// The worker's `--validate` frame: {"checks": [{name, ok, detail}], "peak_memory_bytes",
// "peak_rss_bytes"} or {"error"}.
nlohmann::json to_json(const ProblemReport& report);
ProblemReport problem_report_from_json(const nlohmann::json& json, const std::string& where);

// A device name in a file: "cpu", "cuda" or "cuda:N"; anything else is a CodecError.
Device device_from_json(const JsonFields& fields, const char* key);

}  // namespace kbench
