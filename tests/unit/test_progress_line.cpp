// The live progress line: durations, the ETA estimate and the line itself.
#include "catch.hpp"
#include "report/progress_line.hpp"

using Catch::Approx;

using namespace kbench;

TEST_CASE("durations read as seconds, minutes or hours") {
  CHECK(format_duration(0) == "0s");
  CHECK(format_duration(44.6) == "45s");
  CHECK(format_duration(190) == "3m10s");
  CHECK(format_duration(3599.4) == "59m59s");
  CHECK(format_duration(3720) == "1h02m");
  CHECK(format_duration(-3) == "0s");
}

TEST_CASE("the ETA is the remaining jobs at this session's rate") {
  CHECK_FALSE(estimate_remaining_s(0, 10, 30));
  CHECK(*estimate_remaining_s(4, 36, 20) == Approx(180));
  CHECK(*estimate_remaining_s(10, 0, 50) == Approx(0));
}

TEST_CASE("the line shows done/total, failures, ETA and the running jobs") {
  ProgressTracker tracker(40, 10);  // 10 done by an earlier session
  CHECK(tracker.line(0) == "[10/40] ETA --");
  tracker.started(10, "gemm/a.py");
  tracker.started(11, "conv/b.py");
  CHECK(tracker.line(1) == "[10/40] ETA -- · running: gemm/a.py, conv/b.py");
  tracker.finished(10, false);
  tracker.finished(11, true);
  tracker.started(12, "relu/c.py");
  // 2 jobs in 20 s this session; 28 left: 280 s. Jobs of the earlier session do not count.
  CHECK(tracker.line(20) == "[12/40] 1 failed · ETA 4m40s · running: relu/c.py");
  CHECK(tracker.done() == 12);
}

TEST_CASE("a long line is cut to the width in characters") {
  ProgressTracker tracker(5, 0);
  tracker.started(0, std::string(200, 'x'));
  const std::string line = tracker.line(0, 40);
  CHECK(line.size() > 40);  // "·" and "…" are two and three bytes
  std::size_t chars = 0;
  for (unsigned char c : line) chars += (c & 0xC0) != 0x80;
  CHECK(chars == 40);
  CHECK(line.substr(line.size() - 3) == "…");
  CHECK(line.rfind("[0/5] ETA -- · running: xxx", 0) == 0);
}

TEST_CASE("a growing run: the total follows the queue; model requests in flight and their tokens are shown") {
  ProgressTracker tracker(2, 0);
  tracker.already_finished();  // a result without a worker (no_code)
  tracker.set_total(6);        // the agent announced all its turns
  CHECK(tracker.line(0) == "[1/6] ETA --");
  tracker.set_generation(2, 150);
  CHECK(tracker.line(0) == "[1/6] ETA -- · asking the model: 2 requests (150 tokens so far)");
  tracker.set_generation(1, 300);
  tracker.started(1, "p/sample-0-turn-2.py");
  CHECK(tracker.line(0) == "[1/6] ETA -- · asking the model: 1 request (300 tokens so far) · running: p/sample-0-turn-2.py");
}
