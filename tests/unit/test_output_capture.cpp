#include <algorithm>
#include <string>

#include "catch.hpp"
#include "exec/output_capture.hpp"

using namespace kbench;

TEST_CASE("output under the cap is kept whole") {
  OutputCapture capture(100);
  capture.append("hello ", 6);
  capture.append("world\n", 6);
  CHECK(capture.text() == "hello world\n");
  CHECK(capture.tail(8192) == "hello world\n");
  CHECK(capture.tail(6) == "[... 6 bytes cut ...]\nworld\n");
  CHECK(capture.total_bytes() == 12);
  CHECK(!capture.truncated());
}

TEST_CASE("a flood keeps the first and the last half of the cap, in any chunking") {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += std::to_string(i) + ",";
  for (const std::size_t chunk : {1u, 7u, 64u, 100000u}) {
    OutputCapture capture(100);
    for (std::size_t at = 0; at < data.size(); at += chunk)
      capture.append(data.data() + at, std::min(chunk, data.size() - at));
    INFO("chunk " << chunk);
    CHECK(capture.total_bytes() == data.size());
    CHECK(capture.truncated());
    const auto cut = std::to_string(data.size() - 100);
    CHECK(capture.text() == data.substr(0, 50) + "\n[... " + cut + " bytes cut ...]\n" +
                                data.substr(data.size() - 50));
    // The tail never reaches into the head across the cut.
    CHECK(capture.tail(8192) == "[... " + std::to_string(data.size() - 50) + " bytes cut ...]\n" +
                                    data.substr(data.size() - 50));
    CHECK(capture.tail(10) == "[... " + std::to_string(data.size() - 10) + " bytes cut ...]\n" +
                                  data.substr(data.size() - 10));
  }
}

TEST_CASE("exactly at the cap nothing is cut") {
  OutputCapture capture(10);
  capture.append("0123456789", 10);
  CHECK(!capture.truncated());
  CHECK(capture.text() == "0123456789");
  capture.append("A", 1);
  CHECK(capture.truncated());
  CHECK(capture.text() == "01234\n[... 1 bytes cut ...]\n6789A");
}
