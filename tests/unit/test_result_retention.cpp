// ResultRetention (lib/service/result_retention.hpp) without workers: the count bound evicts the
// least recently finished or read, the age bound the least recently touched, tombstones say why
// and count attempts, revived ids are live again, and tombstones are bounded. A fake clock.
#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "service/result_retention.hpp"

using namespace kbench;
using namespace std::chrono_literals;
using Clock = ResultRetention::Clock;

namespace {

EvictedResult about(const std::string& digest = "d", std::size_t attempts = 1) {
  return EvictedResult{"add_one", digest, attempts, ""};
}

}  // namespace

TEST_CASE("the count bound evicts the least recently finished first") {
  ResultRetention retention({2, std::nullopt});
  const auto t = Clock::now();
  CHECK(retention.finished("a", about(), t).empty());
  CHECK(retention.finished("b", about(), t + 1s).empty());
  CHECK(retention.finished("c", about(), t + 2s) == std::vector<std::string>{"a"});
  CHECK(retention.finished("d", about(), t + 3s) == std::vector<std::string>{"b"});
  CHECK(retention.kept() == 2);
  CHECK(retention.evicted_by_count() == 2);
  CHECK(retention.evicted_by_age() == 0);
  REQUIRE(retention.evicted("a") != nullptr);
  CHECK(retention.evicted("a")->reason == "count");
  CHECK(retention.evicted("a")->problem_id == "add_one");
  CHECK(retention.evicted("c") == nullptr);  // kept
  CHECK(retention.evicted("never") == nullptr);
}

TEST_CASE("a read makes a result the most recently used (LRU, not FIFO)") {
  ResultRetention retention({2, std::nullopt});
  const auto t = Clock::now();
  retention.finished("a", about(), t);
  retention.finished("b", about(), t + 1s);
  retention.touched("a", t + 2s);
  CHECK(retention.finished("c", about(), t + 3s) == std::vector<std::string>{"b"});
  retention.touched("never", t + 4s);  // not kept: ignored
  retention.touched("b", t + 4s);      // evicted: stays evicted
  CHECK(retention.evicted("b") != nullptr);
  CHECK(retention.kept() == 2);
}

TEST_CASE("the age bound evicts results not finished or read for keep_s") {
  ResultRetention retention({100, 10.0});
  const auto t = Clock::now();
  retention.finished("a", about(), t);
  retention.finished("b", about(), t + 5s);
  retention.touched("a", t + 6s);
  CHECK(retention.expire(t + 9s).empty());
  CHECK(retention.expire(t + 15s) == std::vector<std::string>{"b"});  // b last touched at 5 s
  CHECK(retention.expire(t + 16s) == std::vector<std::string>{"a"});  // a read at 6 s
  CHECK(retention.kept() == 0);
  CHECK(retention.evicted_by_age() == 2);
  CHECK(retention.evicted("a")->reason == "age");
  // A finish expires too: an old one goes when a new one comes.
  retention.finished("c", about(), t + 20s);
  CHECK(retention.finished("d", about(), t + 31s) == std::vector<std::string>{"c"});
}

TEST_CASE("without keep_s nothing ages out") {
  ResultRetention retention({100, std::nullopt});
  const auto t = Clock::now();
  retention.finished("a", about(), t);
  CHECK(retention.expire(t + 1000h).empty());
  CHECK(retention.kept() == 1);
}

TEST_CASE("an evicted id finished again is live again, its attempts carried by the caller") {
  ResultRetention retention({1, std::nullopt});
  const auto t = Clock::now();
  retention.finished("a", about("da"), t);
  retention.finished("b", about("db"), t + 1s);
  REQUIRE(retention.evicted("a") != nullptr);
  CHECK(retention.evicted("a")->digest == "da");
  CHECK(retention.evicted("a")->attempts == 1);
  CHECK(retention.finished("a", about("da", 2), t + 2s) == std::vector<std::string>{"b"});
  CHECK(retention.evicted("a") == nullptr);
  retention.finished("c", about(), t + 3s);
  REQUIRE(retention.evicted("a") != nullptr);
  CHECK(retention.evicted("a")->attempts == 2);
}

TEST_CASE("tombstones are bounded, oldest forgotten first, a re-evicted id's newest kept") {
  ResultRetention retention({1, std::nullopt});
  const std::size_t bound = retention.evicted_ids_kept();
  CHECK(bound == 1024);
  const auto t = Clock::now();
  retention.finished("again", about(), t);
  retention.finished("x0", about(), t);  // "again" evicted: the oldest tombstone
  retention.finished("again", about("d", 2), t);  // revived, then evicted again below
  for (std::size_t i = 1; i <= bound + 10; ++i) retention.finished("x" + std::to_string(i), about(), t);
  CHECK(retention.evicted("x0") == nullptr);  // forgotten: older than the last `bound`
  CHECK(retention.evicted("x5") == nullptr);
  CHECK(retention.evicted("x" + std::to_string(bound)) != nullptr);
  CHECK(retention.evicted("again") == nullptr);  // its second tombstone is old too by now
  CHECK(retention.kept() == 1);
  CHECK(retention.evicted_by_count() == bound + 12);

  ResultRetention big({100000, std::nullopt});
  CHECK(big.evicted_ids_kept() == 65536);
}

TEST_CASE("a revived id's stale order entry does not forget its newer tombstone") {
  ResultRetention retention({1, std::nullopt});
  const std::size_t bound = retention.evicted_ids_kept();
  const auto t = Clock::now();
  retention.finished("a", about(), t);
  retention.finished("b", about(), t);   // a evicted (entry 1)
  retention.finished("a", about("d", 2), t);  // revived; b evicted
  retention.finished("c", about(), t);   // a evicted again (entry 3)
  // Push entries 1 and 2 out of the bound, but not entry 3.
  for (std::size_t i = 0; i < bound - 1; ++i) retention.finished("y" + std::to_string(i), about(), t);
  REQUIRE(retention.evicted("a") != nullptr);
  CHECK(retention.evicted("a")->attempts == 2);
  CHECK(retention.evicted("b") == nullptr);
}

TEST_CASE("bad limits are input errors") {
  CHECK_THROWS_AS(ResultRetention({0, std::nullopt}), InputError);
  CHECK_THROWS_AS(ResultRetention({1, 0.0}), InputError);
  CHECK_THROWS_AS(ResultRetention({1, -5.0}), InputError);
}
