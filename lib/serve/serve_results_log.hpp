#pragma once
// `kbench serve --results FILE`: every finished evaluation as one JSON line (the Evaluator's
// evaluation_json, the codec's results entry inside), written and fsynced as it finishes, so a
// server killed mid-run loses nothing it measured, and nothing the Evaluator evicts from memory
// (keep_finished) is lost either: every result is here before it can be evicted. The file is
// appended to, never truncated; an id already written (an idempotent resubmission) is not written
// again, unless it is a new attempt (an evicted id evaluated again: Evaluation::attempt).
#include <filesystem>
#include <mutex>
#include <set>
#include <string>

#include "service/evaluation.hpp"

namespace kbench {

class ResultsLog {
 public:
  // Opens (creates) `file` for appending; InputError when it cannot be.
  explicit ResultsLog(std::filesystem::path file);
  ~ResultsLog();
  ResultsLog(const ResultsLog&) = delete;
  ResultsLog& operator=(const ResultsLog&) = delete;

  // Appends `evaluation` unless its request id and attempt were written already; thread-safe.
  void write(const Evaluation& evaluation);
  [[nodiscard]] std::size_t lines_written() const;

 private:
  std::filesystem::path file_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::set<std::string> written_;  // "id#attempt"
};

}  // namespace kbench
