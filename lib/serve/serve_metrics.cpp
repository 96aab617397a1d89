#include "serve/serve_metrics.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <utility>

namespace kbench {
namespace {

class Exposition {
 public:
  void family(const char* name, const char* type, const char* help) {
    text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(const char* name, double value, const std::string& labels = {}) {
    text_ += fmt::format("{}{} {}\n", name, labels.empty() ? "" : "{" + labels + "}", value);
  }
  void gauge(const char* name, const char* help, double value) {
    family(name, "gauge", help);
    sample(name, value);
  }
  [[nodiscard]] std::string text() const { return text_; }

 private:
  std::string text_;
};

std::string label(const char* key, const std::string& value) {
  return fmt::format("{}=\"{}\"", key, prometheus_label(value));
}

}  // namespace

std::string prometheus_label(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string metrics_text(const EvaluatorStats& stats, const HttpTally& http) {
  Exposition out;
  out.gauge("kbench_queue_depth", "Accepted requests waiting for a worker slot.", double(stats.queued));
  out.gauge("kbench_queue_capacity", "Waiting requests beyond which POST /evaluate answers 429.",
            double(stats.max_queued));
  out.gauge("kbench_in_flight", "Evaluations running in a worker now.", double(stats.running));
  out.gauge("kbench_worker_slots", "Worker slots (evaluations that can run at once).", double(stats.slots));
  out.gauge("kbench_waiting_http_requests", "HTTP requests blocked waiting for their result (wait=1).",
            double(http.waiting));
  out.gauge("kbench_accepting", "1 while new evaluations are accepted, 0 while draining.",
            stats.accepting && !http.draining ? 1 : 0);

  out.gauge("kbench_results_kept", "Finished results kept in memory for GET /results/ID (at most --keep-results).",
            double(stats.kept));
  out.family("kbench_results_evicted_total", "counter",
             "Finished results evicted from memory, by reason: count (over --keep-results), age (--keep-results-s).");
  out.sample("kbench_results_evicted_total", double(stats.evicted_by_count), label("reason", "count"));
  out.sample("kbench_results_evicted_total", double(stats.evicted_by_age), label("reason", "age"));

  out.family("kbench_evaluations_total", "counter", "Finished evaluations by status.");
  for (const auto& [status, count] : stats.by_status)
    out.sample("kbench_evaluations_total", double(count), label("status", status));
  out.family("kbench_evaluations_finished_total", "counter", "Finished evaluations, all statuses.");
  out.sample("kbench_evaluations_finished_total", double(stats.finished));
  out.family("kbench_refused_total", "counter", "Requests the queue refused (answered 429).");
  out.sample("kbench_refused_total", double(stats.refused_queue_full), label("reason", "queue_full"));

  out.family("kbench_time_seconds_total", "counter",
             "Seconds summed over finished evaluations, by part (queue_wait: submit to worker start; "
             "worker_wall: the worker process; gpu_lock_wait: inside it, for the GPU lock; total: "
             "submit to result).");
  const TimeSplit& time = stats.time_sums;
  for (const auto& [part, seconds] :
       {std::pair{"queue_wait", time.queue_wait_s}, std::pair{"worker_wall", time.worker_wall_s},
        std::pair{"gpu_lock_wait", time.gpu_lock_wait_s}, std::pair{"total", time.total_s}})
    out.sample("kbench_time_seconds_total", seconds, label("part", part));
  out.family("kbench_phase_seconds_total", "counter",
             "Seconds summed over finished evaluations, by worker phase (as the worker reports them).");
  if (time.phases_s.is_object()) {
    for (const auto& [phase, seconds] : time.phases_s.items())
      if (seconds.is_number()) out.sample("kbench_phase_seconds_total", seconds.get<double>(), label("phase", phase));
  }

  const ReferenceFillStats& fill = stats.fill;
  out.gauge("kbench_reference_fill_problems", "Problems whose kept reference the service measures at start.",
            double(fill.problems));
  out.gauge("kbench_reference_fill_pending", "Reference fills not finished yet (queued or running).",
            double(fill.pending() + fill.running));
  out.family("kbench_reference_filled_total", "counter",
             "Reference fills that left the problem's record kept (measured, or already there).");
  out.sample("kbench_reference_filled_total", double(fill.filled));
  out.family("kbench_reference_fill_failed_total", "counter",
             "Reference fills whose trusted measurement failed (the problem's first request measures again).");
  out.sample("kbench_reference_fill_failed_total", double(fill.failed));
  out.family("kbench_reference_fill_seconds_total", "counter",
             "Seconds the reference fill's trusted workers ran, summed.");
  out.sample("kbench_reference_fill_seconds_total", fill.seconds);

  out.family("kbench_http_responses_total", "counter", "HTTP responses sent, by status code.");
  for (const auto& [code, count] : http.responses_by_code)
    out.sample("kbench_http_responses_total", double(count), label("code", std::to_string(code)));
  return out.text();
}

}  // namespace kbench
