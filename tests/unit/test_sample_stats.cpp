#include "catch.hpp"
#include "measure/fixed_protocol.hpp"
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

namespace {
// Returns a scripted sequence of times, to test the protocol without a clock.
class ScriptedTimer final : public Timer {
 public:
  [[nodiscard]] std::string name() const override { return "scripted"; }
  double time_ms(const std::function<void()>& fn) override {
    fn();
    return double(++calls_);
  }
  int calls_ = 0;
};
}  // namespace

TEST_CASE("the fixed protocol discards warmup calls and keeps trials in order") {
  ScriptedTimer timer;
  int invoked = 0;
  const auto samples = measure_fixed(timer, [&] { ++invoked; }, {2, 3});
  CHECK(invoked == 5);
  CHECK(samples == std::vector<double>{3, 4, 5});
}

TEST_CASE("the host timer measures real elapsed time") {
  auto timer = make_host_timer();
  CHECK(timer->name() == "host_clock");
  volatile double sink = 0;
  const double ms = timer->time_ms([&] {
    for (int i = 0; i < 2000000; ++i) sink = sink + i;
  });
  CHECK(ms > 0);
}
