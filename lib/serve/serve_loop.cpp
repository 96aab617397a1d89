#include "serve/serve_loop.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "serve/http_auth.hpp"
#include "serve/serve_results_log.hpp"

namespace kbench {
namespace {

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int signal_number) {
  const char byte = static_cast<char>(signal_number);
  [[maybe_unused]] auto ignored = write(g_signal_pipe[1], &byte, 1);
}

// SIGTERM and SIGINT written into a pipe while it lives; the previous handlers back after.
class StopSignals {
 public:
  StopSignals() {
    if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
      throw EnvironmentError(fmt::format("pipe: {}", std::strerror(errno)));
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, &old_term_);
    sigaction(SIGINT, &action, &old_int_);
  }
  ~StopSignals() {
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
    close(g_signal_pipe[0]);
    close(g_signal_pipe[1]);
    g_signal_pipe[0] = g_signal_pipe[1] = -1;
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits up to `timeout_ms` (-1: for ever) for a signal; its number, or 0.
  int wait(int timeout_ms) const {
    for (;;) {
      pollfd fd{g_signal_pipe[0], POLLIN, 0};
      // The handler's own signal interrupts poll (never restarted, SA_RESTART or not): poll again,
      // the byte is in the pipe by then.
      const int ready = poll(&fd, 1, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return 0;
      char byte = 0;
      if (read(g_signal_pipe[0], &byte, 1) == 1) return byte;
      if (timeout_ms >= 0) return 0;
    }
  }

 private:
  struct sigaction old_term_ {};
  struct sigaction old_int_ {};
};

}  // namespace

int run_serve(ServeOptions options) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  // Before anything slow: a public bind without a token is refused at once.
  if (options.token_file) options.http.token = read_token_file(*options.token_file);
  require_token_for_bind(options.http.host, options.http.token);
  std::unique_ptr<ResultsLog> results;
  if (options.results_file) results = std::make_unique<ResultsLog>(*options.results_file);

  StopSignals signals;  // a signal during the start-up drains at once once serving
  Evaluator evaluator(options.evaluator);
  std::atomic<bool> log_failed{false};
  auto on_finished = [&](const Evaluation& evaluation) {
    if (!results) return;
    try {
      results->write(evaluation);
    } catch (const std::exception& e) {
      // The result stays readable over HTTP; the log line says what the file is missing.
      if (!log_failed.exchange(true)) log(fmt::format("results log: {} (further failures not shown)", e.what()));
    }
  };
  HttpServer server(evaluator, options.http, on_finished);
  const int port = server.bind();
  std::thread http([&] { server.serve(); });
  const EvaluatorStats started = evaluator.stats();
  log(fmt::format("serving {} problems on http://{}:{} with {} worker slot(s), queue {}{}", evaluator.problem_ids().size(),
                  options.http.host, port, started.slots, started.max_queued,
                  options.http.token ? ", bearer token required" : ""));
  if (options.on_listening) options.on_listening(options.http.host, port);

  const int first = signals.wait(-1);
  log(fmt::format("{}: draining: new evaluations get 503; {} queued and {} running finish (signal again to kill "
                  "the running workers)",
                  first == SIGINT ? "SIGINT" : "SIGTERM", evaluator.stats().queued, evaluator.stats().running));
  server.begin_drain();
  std::atomic<bool> drained{false};
  std::thread drainer([&] {
    evaluator.drain();
    drained = true;
  });
  bool killed = false;
  std::chrono::steady_clock::time_point killed_at;
  while (!drained) {
    const int again = signals.wait(200);
    if (again != 0 && !killed) {
      log(fmt::format("signal {} again: killing the running workers; their requests are not answered", again));
      killed = true;
      killed_at = std::chrono::steady_clock::now();
      // exec/interrupt's second stage: run_worker_process kills the workers' process groups.
      while (!kill_requested()) request_interrupt();
    }
    // Killed jobs are not results, so the session may never call their requests done: what was
    // written is written; the workers die with this process (PR_SET_PDEATHSIG).
    if (killed && std::chrono::steady_clock::now() - killed_at > std::chrono::seconds(15)) {
      log("the killed evaluations did not end within 15 s; exiting without them");
      std::_Exit(kExitInterrupted);
    }
  }
  drainer.join();
  server.stop();
  http.join();
  const EvaluatorStats end = evaluator.stats();
  log(fmt::format("drained: {} evaluations finished{}", end.finished,
                  results ? fmt::format(", {} written to {}", results->lines_written(), options.results_file->string()) : ""));
  return killed ? int(kExitInterrupted) : int(kExitOk);
}

}  // namespace kbench
