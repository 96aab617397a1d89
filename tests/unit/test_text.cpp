#include "catch.hpp"
#include "core/text.hpp"

using namespace kbench;

TEST_CASE("edit_distance counts insertions, deletions and substitutions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("trials", "trials") == 0);
  CHECK(edit_distance("trails", "trials") == 2);
  CHECK(edit_distance("seed", "seeds") == 1);
  CHECK(edit_distance("abc", "") == 3);
}

TEST_CASE("closest_match suggests plausible typos only") {
  const std::vector<std::string> keys = {"dtype", "seeds", "trials", "warmup"};
  CHECK(closest_match("trails", keys) == "trials");
  CHECK(closest_match("seed", keys) == "seeds");
  CHECK(closest_match("completely_different", keys).empty());
}

TEST_CASE("tail_of keeps the end and says how much was cut") {
  CHECK(tail_of("short", 10) == "short");
  const std::string cut = tail_of("0123456789", 4);
  CHECK(cut.find("6 bytes cut") != std::string::npos);
  CHECK(cut.substr(cut.size() - 4) == "6789");
}

TEST_CASE("printable escapes control bytes and invalid UTF-8, keeps the rest") {
  CHECK(printable("suite.yaml:3:1: unknown key 'a\xff\x1b[31m'") ==
        "suite.yaml:3:1: unknown key 'a\\xff\\x1b[31m'");
  CHECK(printable("line one\nline\ttwo, caf\xc3\xa9 \xe2\x9c\x93") == "line one\nline\ttwo, caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(printable("\xc0\xaf truncated \xe2\x9c") == "\\xc0\\xaf truncated \\xe2\\x9c");
}
