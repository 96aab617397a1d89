#pragma once
// One captured output stream of a worker (stdout or stderr), drained from a pipe by the
// controller: the first and the last cap/2 bytes are kept, whatever the candidate writes, so a
// flood can neither block the worker nor grow the controller's memory.
#include <cstdint>
#include <string>

namespace kbench {

class OutputCapture {
 public:
  explicit OutputCapture(std::size_t cap_bytes);
  void append(const char* data, std::size_t size);

  std::uint64_t total_bytes() const { return total_; }
  bool truncated() const { return total_ > head_.size() + tail_size_; }
  // The head, a "[... N bytes cut ...]" line when something was dropped, then the tail.
  std::string text() const;
  // The last `max_bytes` (prefixed like core/text.hpp tail_of when cut).
  std::string tail(std::size_t max_bytes) const;

 private:
  std::string ordered_tail() const;
  std::size_t head_cap_, tail_cap_;
  std::string head_;
  std::string ring_;  // the last tail_cap_ bytes after the head, as a ring buffer
  std::size_t ring_pos_ = 0, tail_size_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace kbench
