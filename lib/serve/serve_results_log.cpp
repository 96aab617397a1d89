#include "serve/serve_results_log.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/error.hpp"

namespace kbench {

ResultsLog::ResultsLog(std::filesystem::path file) : file_(std::move(file)) {
  fd_ = open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(fmt::format("--results {}: cannot be opened for appending: {}", file_.string(), std::strerror(errno)));
}

ResultsLog::~ResultsLog() {
  if (fd_ >= 0) close(fd_);
}

void ResultsLog::write(const Evaluation& evaluation) {
  std::lock_guard lock(mutex_);
  // By id and attempt: an evicted id evaluated again is a new measurement, so a new line.
  if (!written_.insert(evaluation.request_id + '#' + std::to_string(evaluation.attempt)).second) return;
  const std::string line =
      evaluation_json(evaluation).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // One write(2) per line on an O_APPEND descriptor: a line is never interleaved with another.
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(fmt::format("{}: write failed: {}", file_.string(), std::strerror(errno)));
    done += std::size_t(n);
  }
  if (fsync(fd_) != 0) throw std::runtime_error(fmt::format("{}: fsync failed: {}", file_.string(), std::strerror(errno)));
}

std::size_t ResultsLog::lines_written() const {
  std::lock_guard lock(mutex_);
  return written_.size();
}

}  // namespace kbench
