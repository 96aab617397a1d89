#include "serve/http_server.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "serve/http_auth.hpp"
#include "serve/http_request_body.hpp"
#include "serve/serve_metrics.hpp"

namespace kbench {
namespace {

using nlohmann::json;

// Large enough for a batch of kMaxBatchRequests candidates of ~30 KiB each.
constexpr std::size_t kMaxBodyBytes = 32u << 20;

void send_json(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

json error_body(const std::string& code, const std::string& message) {
  return {{"error", {{"code", code}, {"message", message}}}};
}

int http_code(EvaluatorRefusal::Reason reason) {
  switch (reason) {
    case EvaluatorRefusal::Reason::queue_full: return 429;
    case EvaluatorRefusal::Reason::draining: return 503;
    case EvaluatorRefusal::Reason::conflict: return 409;
    case EvaluatorRefusal::Reason::unknown_problem:
    case EvaluatorRefusal::Reason::bad_request: return 400;
  }
  return 400;
}

// ?wait=1 / true / yes; 0 / false / no / absent.
bool wait_query(const httplib::Request& req) {
  if (!req.has_param("wait")) return false;
  const std::string value = req.get_param_value("wait");
  if (value == "1" || value == "true" || value == "yes" || value.empty()) return true;
  if (value == "0" || value == "false" || value == "no") return false;
  throw BadRequestBody(fmt::format("?wait={}: use wait=1 (block for the result) or wait=0", value.substr(0, 20)));
}

json finished_json(const Evaluation& evaluation) {
  json body = evaluation_json(evaluation);
  body["state"] = to_string(RequestState::finished);
  return body;
}

json pending_json(const std::string& request_id, RequestState state) {
  return {{"request_id", request_id},
          {"state", to_string(state)},
          {"status_url", "/status/" + request_id},
          {"result_url", "/results/" + request_id}};
}

// 410 Gone for an id whose result was evicted (docs/serve.md#retention): unlike 404 it says the
// id was real, why it went, and what to do.
json evicted_body(const RequestStatus& found, const EvaluatorStats& stats) {
  const EvictedResult& gone = *found.evicted;
  const std::string bound =
      gone.reason == "age" ? fmt::format("not read for --keep-results-s {} s", stats.keep_finished_s.value_or(0))
                           : fmt::format("more than --keep-results {} newer or more recently read results", stats.keep_finished);
  json body = error_body("evicted", fmt::format("the result of request '{}' was evicted from memory ({}); it is in the "
                                                "--results log if the server writes one; POST the same request again "
                                                "to evaluate it afresh (attempt {})",
                                                found.request_id, bound, gone.attempts + 1));
  body["request_id"] = found.request_id;
  body["problem_id"] = found.problem_id;
  body["state"] = to_string(RequestState::evicted);
  body["evicted_because"] = gone.reason;
  body["attempts"] = gone.attempts;
  body["keep_results"] = stats.keep_finished;
  body["keep_results_s"] = stats.keep_finished_s ? json(*stats.keep_finished_s) : json();
  return body;
}

}  // namespace

struct HttpServer::State {
  Evaluator& evaluator;
  ServeSettings settings;
  std::function<void(const Evaluation&)> on_finished;
  httplib::Server server;
  std::atomic<bool> draining{false};
  std::atomic<std::size_t> waiting{0};
  std::mutex tally_mutex;
  std::map<int, std::size_t> responses_by_code;

  State(Evaluator& e, ServeSettings s, std::function<void(const Evaluation&)> f)
      : evaluator(e), settings(std::move(s)), on_finished(std::move(f)) {}

  // Seconds a refused client should wait: the queue ahead of it at the mean evaluation time,
  // spread over the slots; 1 to 120.
  [[nodiscard]] int retry_after_s() const {
    const EvaluatorStats stats = evaluator.stats();
    const double mean_s = stats.finished > 0 ? stats.time_sums.worker_wall_s / double(stats.finished) : 5.0;
    const double ahead = double(stats.queued + 1) / double(std::max<std::size_t>(stats.slots, 1));
    return int(std::clamp(std::ceil(mean_s * ahead), 1.0, 120.0));
  }

  void refuse(httplib::Response& res, const EvaluatorRefusal& refusal) {
    const int code = http_code(refusal.reason());
    if (code == 429 || code == 503) res.set_header("Retry-After", std::to_string(retry_after_s()));
    send_json(res, code, error_body(to_string(refusal.reason()), refusal.what()));
  }

  bool refuse_while_draining(httplib::Response& res) {
    if (!draining) return false;
    res.set_header("Retry-After", std::to_string(retry_after_s()));
    res.set_header("Connection", "close");
    send_json(res, 503, error_body("draining", "the service is shutting down: no new evaluations are "
                                                "accepted; results of accepted ones stay readable until it exits"));
    return true;
  }

  Evaluator::Handle submit(EvaluationRequest request) {
    return evaluator.submit(std::move(request), on_finished);
  }

  // Blocks until `handle` is ready or the deadline passes; true when ready.
  bool wait_until(const Evaluator::Handle& handle, std::chrono::steady_clock::time_point deadline) {
    ++waiting;
    const bool ready = handle.wait_until(deadline) == std::future_status::ready;
    --waiting;
    return ready;
  }

  [[nodiscard]] std::chrono::steady_clock::time_point deadline() const {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(settings.request_timeout_s));
  }

  json state_of(const std::string& request_id) const {
    const auto status = evaluator.lookup(request_id);
    return pending_json(request_id, status ? status->state : RequestState::queued);
  }

  void evaluate(const httplib::Request& req, httplib::Response& res) {
    if (refuse_while_draining(res)) return;
    const EvaluateCall call = evaluate_call_from_body(req.body, wait_query(req));
    const std::string id = *call.request.request_id;
    Evaluator::Handle handle;
    try {
      handle = submit(call.request);
    } catch (const EvaluatorRefusal& refusal) {
      refuse(res, refusal);
      return;
    }
    if (handle.wait_for(std::chrono::seconds(0)) == std::future_status::ready ||
        (call.wait && wait_until(handle, deadline()))) {
      send_json(res, 200, finished_json(handle.get()));
      return;
    }
    res.set_header("Location", "/results/" + id);
    send_json(res, 202, state_of(id));
  }

  void evaluate_batch(const httplib::Request& req, httplib::Response& res) {
    if (refuse_while_draining(res)) return;
    const BatchCall call = batch_call_from_body(req.body, wait_query(req));
    struct Entry {
      std::optional<Evaluator::Handle> handle;
      json refusal;
      bool queue_full = false;
    };
    std::vector<Entry> entries(call.requests.size());
    for (std::size_t i = 0; i < call.requests.size(); ++i) {
      try {
        entries[i].handle = submit(call.requests[i]);
      } catch (const EvaluatorRefusal& refusal) {
        entries[i].queue_full = refusal.reason() == EvaluatorRefusal::Reason::queue_full;
        entries[i].refusal = error_body(to_string(refusal.reason()), refusal.what());
        entries[i].refusal["request_id"] = *call.requests[i].request_id;
        entries[i].refusal["http_status"] = http_code(refusal.reason());
      }
    }
    const auto until = deadline();
    json results = json::array();
    bool all_finished = true;
    bool all_queue_full = true;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry& entry = entries[i];
      all_queue_full = all_queue_full && entry.queue_full;
      if (!entry.handle) {
        results.push_back(entry.refusal);
        continue;
      }
      const bool ready = entry.handle->wait_for(std::chrono::seconds(0)) == std::future_status::ready ||
                         (call.wait && wait_until(*entry.handle, until));
      if (ready) {
        results.push_back(finished_json(entry.handle->get()));
      } else {
        all_finished = false;
        results.push_back(state_of(*call.requests[i].request_id));
      }
    }
    if (all_queue_full) res.set_header("Retry-After", std::to_string(retry_after_s()));
    send_json(res, all_queue_full ? 429 : all_finished ? 200 : 202, {{"results", results}});
  }

  void status(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    const auto found = evaluator.lookup(id);
    if (!found) {
      send_json(res, 404, error_body("unknown_request", fmt::format("no request with id '{}' (never seen, or "
                                                                    "evicted so long ago that it is forgotten)", id)));
      return;
    }
    if (found->evicted) {
      send_json(res, 410, evicted_body(*found, evaluator.stats()));
      return;
    }
    json body = {{"request_id", found->request_id},
                 {"problem_id", found->problem_id},
                 {"state", to_string(found->state)}};
    if (found->session_id) body["session_id"] = *found->session_id;
    if (found->evaluation) body["status"] = to_string(found->evaluation->result.status);
    send_json(res, 200, body);
  }

  void result(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    const auto found = evaluator.lookup(id);
    if (!found) {
      send_json(res, 404, error_body("unknown_request", fmt::format("no request with id '{}' (never seen, or "
                                                                    "evicted so long ago that it is forgotten)", id)));
    } else if (found->evicted) {
      send_json(res, 410, evicted_body(*found, evaluator.stats()));
    } else if (found->evaluation) {
      send_json(res, 200, finished_json(*found->evaluation));
    } else {
      send_json(res, 202, pending_json(id, found->state));
    }
  }

  void health(httplib::Response& res) {
    const EvaluatorStats stats = evaluator.stats();
    const bool accepting = stats.accepting && !draining;
    send_json(res, accepting ? 200 : 503,
              {{"status", accepting ? "ok" : "draining"},
               {"queued", stats.queued},
               {"running", stats.running},
               {"finished", stats.finished},
               {"slots", stats.slots},
               {"reference_fill", to_json(stats.fill)}});
  }

  void metrics(httplib::Response& res) {
    HttpTally http;
    {
      std::lock_guard lock(tally_mutex);
      http.responses_by_code = responses_by_code;
    }
    http.waiting = waiting;
    http.draining = draining;
    res.set_content(metrics_text(evaluator.stats(), http), "text/plain; version=0.0.4; charset=utf-8");
  }

  // Everything but /health needs the token when one is set.
  httplib::Server::HandlerResponse authenticate(const httplib::Request& req, httplib::Response& res) {
    if (!settings.token || req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
    if (bearer_token_matches(req.get_header_value("Authorization"), *settings.token))
      return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer realm=\"kbench\"");
    send_json(res, 401, error_body("unauthorized", "send the service's token: `Authorization: Bearer TOKEN` "
                                                   "(the file given to kbench serve --token-file)"));
    return httplib::Server::HandlerResponse::Handled;
  }

  // Runs `handle`, turning a bad body into 400.
  template <typename Handle>
  httplib::Server::Handler guarded(Handle handle) {
    return [this, handle](const httplib::Request& req, httplib::Response& res) {
      try {
        (this->*handle)(req, res);
      } catch (const BadRequestBody& e) {
        send_json(res, 400, error_body("bad_request", e.what()));
      }
    };
  }

  void install_routes() {
    server.set_payload_max_length(kMaxBodyBytes);
    const std::size_t threads = std::max<std::size_t>(settings.http_threads, 4);
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_pre_routing_handler([this](const auto& req, auto& res) { return authenticate(req, res); });
    server.Post("/evaluate", guarded(&State::evaluate));
    server.Post("/evaluate/batch", guarded(&State::evaluate_batch));
    server.Get(R"(/status/([^/]+))", guarded(&State::status));
    server.Get(R"(/results/([^/]+))", guarded(&State::result));
    server.Get("/health", [this](const auto&, auto& res) { health(res); });
    server.Get("/metrics", [this](const auto&, auto& res) { metrics(res); });
    // Routes that answered set a body; what is left is httplib's own (no route, 413, ...).
    server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      send_json(res, res.status, error_body(res.status == 404 ? "not_found" : "http_error",
                                            fmt::format("{} {}: HTTP {}; the routes are POST /evaluate, POST /evaluate/batch, "
                                                        "GET /status/ID, GET /results/ID, GET /health, GET /metrics",
                                                        req.method, printable(req.path.substr(0, 200)), res.status)));
      return httplib::Server::HandlerResponse::Handled;
    }));
    server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
      std::string message = "unknown error";
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
      }
      send_json(res, 500, error_body("internal", message));
    });
    server.set_logger([this](const httplib::Request&, const httplib::Response& res) {
      std::lock_guard lock(tally_mutex);
      ++responses_by_code[res.status];
    });
  }
};

HttpServer::HttpServer(Evaluator& evaluator, ServeSettings settings, std::function<void(const Evaluation&)> on_finished)
    : state_(std::make_unique<State>(evaluator, std::move(settings), std::move(on_finished))) {
  state_->install_routes();
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind() {
  auto& s = *state_;
  int port = s.settings.port;
  const bool bound = port == 0 ? (port = s.server.bind_to_any_port(s.settings.host)) > 0
                               : s.server.bind_to_port(s.settings.host, port);
  if (!bound) {
    throw EnvironmentError(fmt::format("cannot listen on {}:{} (in use, not an address of this machine, or a "
                                       "port below 1024 without the right); pick another --host/--port",
                                       s.settings.host, s.settings.port));
  }
  return port;
}

void HttpServer::serve() { state_->server.listen_after_bind(); }

void HttpServer::begin_drain() { state_->draining = true; }

void HttpServer::stop() {
  if (state_) state_->server.stop();
}

}  // namespace kbench
