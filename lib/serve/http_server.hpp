#pragma once
// `kbench serve`'s HTTP front of one Evaluator (docs/serve.md): the routes, their JSON bodies
// (requests read by http_request_body, results written by the Evaluator's own evaluation_json,
// the codec's results entry inside), the bearer token, back-pressure (429 + Retry-After when
// the Evaluator's queue is full), waiting requests bounded by the request timeout, and the
// draining state in which new evaluations get 503 while status and results stay readable.
// cpp-httplib parses HTTP; its header stays in the .cpp (it is large, and optional at build time).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "service/evaluator.hpp"

namespace kbench {

struct ServeSettings {
  std::string host = "127.0.0.1";
  int port = 8000;                 // 0: a free port, chosen at bind()
  double request_timeout_s = 600;  // the longest a waiting request (wait=1) blocks
  std::optional<std::string> token;  // required on every route but /health when set
  std::size_t http_threads = 64;   // connections served at once (waiting requests hold one each)
};

class HttpServer {
 public:
  // `on_finished`: called once per accepted request with its evaluation, on the Evaluator's
  // thread (the results log); may be empty. `evaluator` must outlive the server.
  HttpServer(Evaluator& evaluator, ServeSettings settings,
             std::function<void(const Evaluation&)> on_finished = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the listening socket; the port bound. EnvironmentError when it cannot be bound.
  int bind();
  // Serves until stop(); call after bind(), on a thread of its own.
  void serve();
  // From now on POST /evaluate and /evaluate/batch answer 503; reads still work.
  void begin_drain();
  // Closes the listening socket and waits for the requests being answered.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kbench
