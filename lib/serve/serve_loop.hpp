#pragma once
// `kbench serve` as a library call: the token rule, the results log, the Evaluator, the HTTP
// server, and the life cycle around them (docs/serve.md#drain). SIGTERM or SIGINT starts the
// drain: new evaluations get 503, queued and running ones finish and are written, results stay
// readable, then the server exits 0. A second signal kills the running workers (exit 130).
// The signals are caught through a self-pipe rather than exec/interrupt's counter: its first
// stage would stop the session scheduling the queued requests the drain promises to finish.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "serve/http_server.hpp"
#include "service/evaluator.hpp"

namespace kbench {

struct ServeOptions {
  EvaluatorConfig evaluator;
  ServeSettings http;  // its token is read from token_file
  std::optional<std::filesystem::path> token_file;
  std::optional<std::filesystem::path> results_file;  // JSON lines, appended (serve_results_log.hpp)
  std::function<void(const std::string&)> log;         // one line per event; may be empty
  // Called with the bound port once the server accepts connections (the CLI prints it).
  std::function<void(const std::string& host, int port)> on_listening;
};

// Blocks until drained; the exit code. Throws InputError (a non-loopback bind without a token, a
// bad token file or suite), EnvironmentError (the port, Python, the device) before serving.
int run_serve(ServeOptions options);

}  // namespace kbench
