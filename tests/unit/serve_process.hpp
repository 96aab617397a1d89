#pragma once
// `kbench serve` as a child process on a loopback port, and a cpp-httplib client for it: the
// end-to-end tests of the service (test_serve_http, test_serve_fill) share these.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <chrono>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace kbench::test::serve {

using nlohmann::json;
using namespace std::chrono_literals;

inline const std::filesystem::path kServeSuite = kbench::test::kDataDir / "suites/serve.yaml";

inline std::string candidate(const std::string& relative) {
  return kbench::test::read_text(kbench::test::kSourceDir / "tests" / relative);
}

// `kbench serve` as a child process: stdout and stderr into files, the port read from its
// "listening on" line; SIGKILLed (its pid only) if a test leaves it running.
class ServeProcess {
 public:
  ServeProcess(const kbench::test::TempDir& dir, std::vector<std::string> arguments,
               const std::filesystem::path& suite = kServeSuite)
      : dir_(dir) {
    out_ = dir.path() / "serve.out";
    err_ = dir.path() / "serve.err";
    arguments.insert(arguments.begin(), {kbench::test::kKbench.string(), "serve", suite.string(), "--port", "0",
                                         "--device", "cpu"});
    pid_ = fork();
    if (pid_ == 0) {
      const int out = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> argv;
      for (auto& a : arguments) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    const std::regex listening(R"(listening on http://127\.0\.0\.1:([0-9]+))");
    for (int i = 0; i < 1200 && port_ == 0; ++i) {
      std::smatch m;
      const std::string text = kbench::test::read_text(out_);
      if (std::regex_search(text, m, listening)) port_ = std::stoi(m[1]);
      else if (exited(0ms)) break;
      else std::this_thread::sleep_for(100ms);
    }
    if (port_ == 0) {
      if (!exit_code_) {  // the destructor does not run for a constructor that fails
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
      FAIL("kbench serve did not start:\n" << stderr_text());
    }
  }
  ~ServeProcess() {
    if (!exit_code_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string stderr_text() const { return kbench::test::read_text(err_); }
  void signal(int number) const { kill(pid_, number); }
  // True once the process ended within `timeout` (its exit code in exit_code()).
  bool exited(std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    do {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      }
      if (timeout.count() > 0) std::this_thread::sleep_for(50ms);
    } while (std::chrono::steady_clock::now() < until);
    return false;
  }
  [[nodiscard]] int exit_code() const { return exit_code_.value_or(-1); }

 private:
  const kbench::test::TempDir& dir_;
  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::optional<int> exit_code_;
};

struct Reply {
  int status = 0;
  json body;
  std::string text;
  std::string retry_after;
};

class Client {
 public:
  explicit Client(int port, std::string token = "") : http_("127.0.0.1", port), token_(std::move(token)) {
    http_.set_read_timeout(300, 0);
    http_.set_connection_timeout(10, 0);
  }
  Reply post(const std::string& path, const json& body) { return post_raw(path, body.dump()); }
  Reply post_raw(const std::string& path, const std::string& body) {
    return reply("POST " + path, http_.Post(path.c_str(), headers(), body, "application/json"));
  }
  Reply get(const std::string& path) { return reply("GET " + path, http_.Get(path.c_str(), headers())); }

 private:
  httplib::Headers headers() const {
    if (token_.empty()) return {};
    return {{"Authorization", "Bearer " + token_}};
  }
  static Reply reply(const std::string& what, const httplib::Result& result) {
    INFO(what << ": " << httplib::to_string(result.error()));
    REQUIRE(result);  // a connection error is a failed test, not a crash
    Reply r;
    r.status = result->status;
    r.text = result->body;
    r.retry_after = result->get_header_value("Retry-After");
    if (result->get_header_value("Content-Type").rfind("application/json", 0) == 0) r.body = json::parse(result->body);
    return r;
  }
  httplib::Client http_;
  std::string token_;
};

inline json request(const std::string& problem, const std::string& file, const std::string& id = "") {
  json body = {{"problem_id", problem}, {"source", candidate(file)}};
  if (!id.empty()) body["request_id"] = id;
  return body;
}

// Polls /results/ID until it is final (200); the final reply.
inline Reply await_result(Client& client, const std::string& id, std::chrono::seconds limit = 300s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    Reply r = client.get("/results/" + id);
    if (r.status != 202 || std::chrono::steady_clock::now() > until) return r;
    std::this_thread::sleep_for(200ms);
  }
}

inline double metric(const std::string& text, const std::string& sample) {
  const auto at = text.find("\n" + sample + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + sample.size() + 2));
}

// The complete lines of a JSON-lines file (kbench serve --results): one object per evaluation.
// The server may be appending while a test reads, so a last line without its newline is still
// being written and is left out, not parsed half-way.
inline std::vector<json> log_lines(const std::filesystem::path& file) {
  std::vector<json> lines;
  const std::string text = kbench::test::read_text(file);
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(json::parse(text.substr(start, end - start)));
  return lines;
}

}  // namespace kbench::test::serve
