#include "catch.hpp"
#include "measure/sample_stats.hpp"
#include "measure/timer.hpp"

using namespace kbench;
using Catch::Approx;

TEST_CASE("summary statistics of known samples") {
  const auto odd = summarize({5, 1, 3});
  CHECK(odd.n == 3);
  CHECK(odd.median == 3);
  CHECK(odd.mean == Approx(3));
  CHECK(odd.min == 1);
  CHECK(odd.max == 5);
  CHECK(odd.stdev == Approx(2));

  const auto even = summarize({4, 1, 3, 2});
  CHECK(even.median == Approx(2.5));

  const auto one = summarize({7});
  CHECK(one.stdev == 0);
  CHECK_THROWS(summarize({}));
}

TEST_CASE("the host timer measures real elapsed time") {
  auto timer = make_host_timer();
  CHECK(timer->name() == "host_clock");
  volatile double sink = 0;
  const auto sample = timer->time(
      [&] {
        for (int i = 0; i < 2000000; ++i) sink = sink + i;
      },
      true);
  CHECK(sample.ms > 0);
  CHECK(sample.valid);
  CHECK(!sample.offstream);
}
