#pragma once
// What one request to the Evaluator asks for and what it gets back. The result itself is a
// JobResult (lib/model); this adds the request's identity, where the time went and the feedback
// text for the next prompt. Its JSON (HTTP, Python's to_dict) is written here, the result part
// through the one codec (model/codec.hpp).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/job_result.hpp"

namespace kbench {

struct EvaluationRequest {
  std::string problem_id;
  std::string source;                       // the candidate's Python file, as text
  std::string backend = "auto";             // "triton", "cuda" or "auto" (evaluation_backends())
  std::optional<std::string> request_id;    // idempotent: the same id is evaluated once
  std::optional<std::string> session_id;    // a multi-turn conversation's id, carried through
  // true: `source` is a model's whole reply; its code is extracted as `kbench run` does
  // (generate/code_extraction.hpp), and a reply without code is status no_code, no worker.
  bool is_reply = false;
};

// The backends a request may name.
const std::vector<std::string>& evaluation_backends();

// Where one evaluation's time went, in seconds. queue_wait: submit -> its worker starting;
// worker_wall: the worker process (start to delivered frame, as the controller saw it);
// gpu_lock_wait: inside the worker, waiting for the per-GPU lock (CUDA only, else 0); phases:
// the worker's own timeline (diagnostics.worker_timeline): python_start, prestart_hold, then
// problem_setup, reference, pre_import_checks, extension_builds, candidate_import, correctness,
// timing, post_timing_recheck, report (those it reached); {} when the worker reported none.
struct TimeSplit {
  double queue_wait_s = 0;
  double worker_wall_s = 0;
  double gpu_lock_wait_s = 0;
  double total_s = 0;  // submit -> result
  nlohmann::json phases_s = nlohmann::json::object();
};
nlohmann::json to_json(const TimeSplit& time);

struct Evaluation {
  std::string request_id;
  std::optional<std::string> session_id;
  std::string backend;
  JobResult result;
  TimeSplit time;
  std::string feedback;  // run/turn_feedback.hpp: what the next prompt is told
  // 1; 2+ when this request id was evaluated again after its earlier result was evicted
  // (docs/serve.md#retention): the results log keeps one line per attempt.
  std::size_t attempt = 1;
};

// {"request_id", "session_id", "backend", "problem_id", "status", "message", "time",
//  "feedback", "attempt", "result": result_json(result)}.
nlohmann::json evaluation_json(const Evaluation& evaluation);

}  // namespace kbench
