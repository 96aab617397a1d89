#include "core/file_bytes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kbench {

std::optional<std::string> read_file_bytes(const std::filesystem::path& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::string bytes;
  if (fstat(fd, &info) == 0 && info.st_size > 0) bytes.reserve(std::size_t(info.st_size) + 1);
  // Sized from fstat, but read to the end whatever it said (a file still growing, /proc): the
  // spare capacity is read into, and grown when a read fills it.
  while (true) {
    if (bytes.size() == bytes.capacity()) bytes.reserve(std::max<std::size_t>(2 * bytes.capacity(), 1 << 16));
    const std::size_t at = bytes.size();
    bytes.resize(bytes.capacity());
    const ssize_t got = read(fd, bytes.data() + at, bytes.size() - at);
    bytes.resize(at + std::size_t(std::max<ssize_t>(got, 0)));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;  // for read_file's message, whatever close() does to it
      close(fd);
      errno = error;
      return std::nullopt;
    }
    if (got == 0) break;
  }
  close(fd);
  return bytes;
}

std::string read_file(const std::filesystem::path& file) {
  auto bytes = read_file_bytes(file);
  if (!bytes) throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(errno));
  return std::move(*bytes);
}

}  // namespace kbench
