// read_file_bytes (core/file_bytes.hpp): every byte of files of many sizes, of files whose size
// stat does not tell (/proc), nothing for a file that cannot be read.
#include <fstream>
#include <string>

#include "catch.hpp"
#include "core/file_bytes.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("a file's bytes, whole, whatever its size; none for a missing file") {
  test::TempDir dir;
  for (std::size_t n : {0u, 1u, 65535u, 65536u, 65537u, 3u << 20}) {
    std::string bytes(n, '\0');
    for (std::size_t i = 0; i < n; ++i) bytes[i] = char(i * 7 + n);
    const auto file = dir.path() / ("f" + std::to_string(n));
    std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(n));
    const auto read = read_file_bytes(file);
    REQUIRE(read.has_value());
    CHECK(*read == bytes);
  }
  CHECK_FALSE(read_file_bytes(dir.path() / "missing").has_value());
  CHECK_FALSE(read_file_bytes(dir.path()).has_value());  // a folder: read() fails
  // /proc files report size 0 and still have content.
  const auto status = read_file_bytes("/proc/self/status");
  REQUIRE(status.has_value());
  CHECK(status->find("Pid:") != std::string::npos);
}
