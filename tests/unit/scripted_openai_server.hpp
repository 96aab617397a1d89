#pragma once
// The scripted OpenAI-like server (tests/endpoint/scripted_openai.py) as a test fixture: started
// on a free loopback port with a script of responses, stopped (its pid only) when the fixture
// goes; requests() reads back every request it got.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace kbench::test {

class ScriptedOpenAI {
 public:
  explicit ScriptedOpenAI(const nlohmann::json& script) {
    const auto script_file = dir_.write("script.json", script.dump());
    log_ = dir_.path() / "requests.jsonl";
    const auto port_file = dir_.path() / "port";
    const std::string server = (kSourceDir / "tests/endpoint/scripted_openai.py").string();
    pid_ = fork();
    if (pid_ == 0) {
      const std::string s = script_file.string(), l = log_.string(), p = port_file.string();
      execlp("python3", "python3", server.c_str(), "--script", s.c_str(), "--log", l.c_str(),
             "--port-file", p.c_str(), "--max-seconds", "900", static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 600 && !std::filesystem::exists(port_file); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(port_file);
    if (!(in >> port_)) throw std::runtime_error("the scripted server did not start");
  }
  ~ScriptedOpenAI() { stop(); }
  ScriptedOpenAI(const ScriptedOpenAI&) = delete;
  ScriptedOpenAI& operator=(const ScriptedOpenAI&) = delete;

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  [[nodiscard]] const std::filesystem::path& log_file() const { return log_; }

  // Every request so far, in arrival order (logged before it is answered).
  [[nodiscard]] std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }

 private:
  TempDir dir_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace kbench::test
