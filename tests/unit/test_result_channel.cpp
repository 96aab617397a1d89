#include "catch.hpp"
#include "exec/result_channel.hpp"

using namespace kbench;

TEST_CASE("a frame round-trips") {
  const std::string payload = R"({"status":"ok"})";
  std::string why;
  const auto decoded = decode_result_frame(encode_result_frame(payload), &why);
  REQUIRE(decoded);
  CHECK(*decoded == payload);
  CHECK(decode_result_frame(encode_result_frame(""), &why) == std::optional<std::string>(""));
}

TEST_CASE("anything but exactly one well-formed frame is refused") {
  const std::string frame = encode_result_frame("{}");
  std::string why;
  CHECK(!decode_result_frame("", &why));
  CHECK(why == "the worker delivered no result");
  CHECK(!decode_result_frame("garbage" + frame, &why));
  CHECK(why.find("not a kbench frame") != std::string::npos);
  CHECK(!decode_result_frame(frame + "x", &why));
  CHECK(why == "extra bytes after the result frame");
  CHECK(!decode_result_frame(frame + frame, &why));
  CHECK(!decode_result_frame(frame.substr(0, frame.size() - 1), &why));
  CHECK(why == "truncated frame");
  CHECK(!decode_result_frame("KBENCH-RESULT/1 12x\n{}", &why));
  CHECK(why == "malformed frame length");
  CHECK(!decode_result_frame("KBENCH-RESULT/1 2", &why));
}
