#include "exec/output_capture.hpp"

#include <algorithm>

namespace kbench {

OutputCapture::OutputCapture(std::size_t cap_bytes)
    : head_cap_(cap_bytes / 2), tail_cap_(cap_bytes - cap_bytes / 2), ring_(tail_cap_, '\0') {}

void OutputCapture::append(const char* data, std::size_t size) {
  total_ += size;
  const std::size_t to_head = std::min(size, head_cap_ - head_.size());
  head_.append(data, to_head);
  data += to_head;
  size -= to_head;
  if (tail_cap_ == 0 || size == 0) return;
  if (size > tail_cap_) {  // only the last tail_cap_ bytes of this chunk can survive
    data += size - tail_cap_;
    size = tail_cap_;
  }
  for (std::size_t done = 0; done < size;) {
    const std::size_t n = std::min(size - done, tail_cap_ - ring_pos_);
    std::copy(data + done, data + done + n, ring_.begin() + ring_pos_);
    ring_pos_ = (ring_pos_ + n) % tail_cap_;
    done += n;
  }
  tail_size_ = std::min(tail_cap_, tail_size_ + size);
}

std::string OutputCapture::ordered_tail() const {
  if (tail_size_ < tail_cap_) return ring_.substr(0, tail_size_);
  return ring_.substr(ring_pos_) + ring_.substr(0, ring_pos_);
}

std::string OutputCapture::text() const {
  const std::uint64_t cut = total_ - head_.size() - tail_size_;
  if (cut == 0) return head_ + ordered_tail();
  return head_ + "\n[... " + std::to_string(cut) + " bytes cut ...]\n" + ordered_tail();
}

std::string OutputCapture::tail(std::size_t max_bytes) const {
  // Head and tail are contiguous only when nothing was cut; otherwise the tail alone is the end.
  std::string kept = truncated() ? ordered_tail() : head_ + ordered_tail();
  if (kept.size() > max_bytes) kept = kept.substr(kept.size() - max_bytes);
  if (kept.size() == total_) return kept;
  return "[... " + std::to_string(total_ - kept.size()) + " bytes cut ...]\n" + kept;
}

}  // namespace kbench
