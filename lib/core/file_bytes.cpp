#include "core/file_bytes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace kbench {

std::optional<std::string> read_file_bytes(const std::filesystem::path& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::string bytes;
  if (fstat(fd, &info) == 0 && info.st_size > 0) bytes.reserve(std::size_t(info.st_size));
  // Sized from fstat, but read to the end whatever it said (a file still growing, /proc).
  char chunk[1 << 16];
  while (true) {
    if (bytes.capacity() > bytes.size()) {
      const std::size_t at = bytes.size();
      bytes.resize(bytes.capacity());
      const ssize_t got = read(fd, bytes.data() + at, bytes.size() - at);
      if (got < 0 && errno == EINTR) {
        bytes.resize(at);
        continue;
      }
      if (got < 0) {
        close(fd);
        return std::nullopt;
      }
      bytes.resize(at + std::size_t(got));
      if (got == 0) break;
      continue;
    }
    const ssize_t got = read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      close(fd);
      return std::nullopt;
    }
    if (got == 0) break;
    bytes.append(chunk, std::size_t(got));
  }
  close(fd);
  return bytes;
}

}  // namespace kbench
