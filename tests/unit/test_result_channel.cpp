#include "catch.hpp"
#include "core/hmac_sha256.hpp"
#include "exec/result_channel.hpp"

using namespace kbench;

namespace {
const std::string kKey = "0123456789abcdef0123456789abcdef";
}

TEST_CASE("SHA-256 and HMAC-SHA256 match the published vectors") {
  CHECK(to_hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(to_hex(sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(to_hex(sha256(std::string(1000000, 'a'))) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
  CHECK(to_hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(to_hex(hmac_sha256(std::string(131, '\xaa'),
                           "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("a frame round-trips, with or without phase lines before it") {
  const std::string payload = R"({"status":"ok"})";
  std::string why;
  const auto decoded = decode_result_frame(encode_result_frame(payload, kKey), kKey, &why);
  REQUIRE(decoded);
  CHECK(*decoded == payload);
  CHECK(decode_result_frame(encode_result_frame("", kKey), kKey, &why) ==
        std::optional<std::string>(""));
  const auto phased = encode_phase_line(kRunPhase) + encode_result_frame(payload, kKey);
  CHECK(run_phase_announced(phased));
  CHECK(decode_result_frame(phased, kKey, &why) == std::optional<std::string>(payload));
  CHECK(!run_phase_announced(encode_result_frame(payload, kKey)));
  CHECK(!run_phase_announced("KBENCH-PHASE/1 ru"));
  CHECK(make_channel_key().size() == 32);
  CHECK(make_channel_key() != make_channel_key());
}

TEST_CASE("anything but phase lines and exactly one authentic frame is refused") {
  const std::string frame = encode_result_frame("{}", kKey);
  std::string why;
  CHECK(!decode_result_frame("", kKey, &why));
  CHECK(why == "the worker delivered no result");
  CHECK(!decode_result_frame(encode_phase_line(kRunPhase), kKey, &why));
  CHECK(why == "the worker delivered no result");
  CHECK(!decode_result_frame("garbage" + frame, kKey, &why));
  CHECK(why.find("not a kbench frame") != std::string::npos);
  CHECK(!decode_result_frame(frame + "x", kKey, &why));
  CHECK(why == "extra bytes after the result frame");
  CHECK(!decode_result_frame(frame + frame, kKey, &why));
  CHECK(!decode_result_frame(frame + encode_phase_line(kRunPhase), kKey, &why));
  CHECK(!decode_result_frame(frame.substr(0, frame.size() - 1), kKey, &why));
  CHECK(why == "truncated frame");
  CHECK(!decode_result_frame(encode_phase_line("compile") + frame, kKey, &why));
  CHECK(why.find("unknown phase") != std::string::npos);
  CHECK(!decode_result_frame("KBENCH-RESULT/1 12x " + std::string(64, '0') + "\n{}", kKey, &why));
  CHECK(why == "malformed frame length");
  CHECK(!decode_result_frame("KBENCH-RESULT/1 2", kKey, &why));
}

TEST_CASE("a frame without the right MAC is refused") {
  std::string why;
  // The old, unauthenticated format; a forger who does not know the key.
  CHECK(!decode_result_frame("KBENCH-RESULT/1 2\n{}", kKey, &why));
  CHECK(why == "frame without a MAC");
  const auto forged = encode_result_frame(R"({"status":"ok"})", "not the key");
  CHECK(!decode_result_frame(forged, kKey, &why));
  CHECK(why.find("MAC does not verify") != std::string::npos);
  // Tampering with the payload of an authentic frame.
  auto tampered = encode_result_frame(R"({"status":"mismatch"})", kKey);
  tampered.replace(tampered.find("mismatch"), 8, "ok______");
  CHECK(!decode_result_frame(tampered, kKey, &why));
  CHECK(why.find("MAC does not verify") != std::string::npos);
}

TEST_CASE("a worker's lock lines pass the channel before its frame; malformed ones are refused") {
  CHECK(is_known_phase("lock shared reference"));
  CHECK(is_known_phase("lock exclusive timing"));
  CHECK(is_known_phase("lock none reference_rebuild"));
  CHECK_FALSE(is_known_phase("lock shared"));
  CHECK_FALSE(is_known_phase("lock upgraded reference"));
  CHECK_FALSE(is_known_phase("lock shared two words"));
  CHECK_FALSE(is_known_phase("lock shared ref/../x"));
  const std::string payload = R"({"status":"ok"})";
  std::string why;
  const auto lines = encode_phase_line("lock shared reference") + encode_phase_line("lock none candidate_import") +
                     encode_result_frame(payload, kKey);
  CHECK(decode_result_frame(lines, kKey, &why) == std::optional<std::string>(payload));
  PhaseReader reader;
  CHECK(reader.next(lines) == std::vector<std::string>{"lock shared reference", "lock none candidate_import"});
}
