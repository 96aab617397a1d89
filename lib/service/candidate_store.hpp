#pragma once
// Candidate sources the Evaluator was sent, as files a worker can import: one file per distinct
// text, named by its SHA-256, written once (atomically) and never rewritten, so identical
// submissions share a file and no request can change another's candidate.
#include <filesystem>
#include <string>

namespace kbench {

class CandidateStore {
 public:
  explicit CandidateStore(std::filesystem::path dir);  // created if missing
  // The file holding `source` (<dir>/<sha256>.py); throws EnvironmentError when it cannot be
  // written.
  std::filesystem::path put(const std::string& source) const;
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace kbench
