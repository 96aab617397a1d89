// The side_stream check's noise floor (lib/measure/offstream_rule.hpp): the late samples that
// host scheduling gives honest candidates pass; real off-stream work in a few percent of calls,
// or in most of them, does not.
#include "catch.hpp"
#include "measure/offstream_rule.hpp"

using namespace kbench;

TEST_CASE("the noise allowance grows with the sample count, slower than the count") {
  CHECK(offstream_noise_allowance(0) == 0);
  CHECK(offstream_noise_allowance(20) == 1);
  CHECK(offstream_noise_allowance(200) == 3);
  CHECK(offstream_noise_allowance(2000) == 8);
  CHECK(offstream_noise_allowance(100000) == 132);  // 0.13%: still well under a few percent
  int previous = 0;
  for (std::size_t n : {10, 50, 100, 500, 1000, 5000, 20000}) {
    const int allowance = offstream_noise_allowance(n);
    CHECK(allowance >= previous);
    CHECK(allowance < static_cast<int>(n / 50 + 2));
    previous = allowance;
  }
}

TEST_CASE("honest late samples (H200: 1 of 1860, 1 of 1890, 1 of 2730) are neither flagged nor rejected") {
  CHECK(judge_offstream(1, 1860) == OffstreamVerdict::none);
  CHECK(judge_offstream(1, 1890) == OffstreamVerdict::none);
  CHECK(judge_offstream(1, 2730) == OffstreamVerdict::none);
  CHECK(judge_offstream(0, 2000) == OffstreamVerdict::none);
  CHECK(judge_offstream(1, 20) == OffstreamVerdict::none);
}

TEST_CASE("off-stream work in a few percent of the calls is flagged") {
  CHECK(judge_offstream(60, 2000) == OffstreamVerdict::flag);  // 3%
  CHECK(judge_offstream(20, 2000) == OffstreamVerdict::flag);  // 1%
  CHECK(judge_offstream(4, 100) == OffstreamVerdict::flag);    // 4%
  CHECK(judge_offstream(2, 20) == OffstreamVerdict::flag);     // 10%
  CHECK(judge_offstream(9, 2000) == OffstreamVerdict::flag);   // just above the floor
  CHECK(judge_offstream(8, 2000) == OffstreamVerdict::none);   // at it
}

TEST_CASE("off-stream work in most calls is rejected") {
  CHECK(judge_offstream(1000, 2000) == OffstreamVerdict::reject);
  CHECK(judge_offstream(2000, 2000) == OffstreamVerdict::reject);
  CHECK(judge_offstream(2, 3) == OffstreamVerdict::reject);
  CHECK(judge_offstream(999, 2000) == OffstreamVerdict::flag);
  // Two samples are too few for a rule: not rejected, and one of them is within the noise.
  CHECK(judge_offstream(1, 2) == OffstreamVerdict::none);
}
