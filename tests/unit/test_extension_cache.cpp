// The shared extension cache, controller side (lib/cache/extension_cache.cpp): what a job
// announced before its import is published only when the file still has that hash; symlinks,
// altered and vanished builds are refused; corrupt entries are replaced; LRU eviction; clear.
// No builds (stand-in .so bytes); milliseconds.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "catch.hpp"
#include "cache/extension_cache.hpp"
#include "core/hmac_sha256.hpp"
#include "exec/result_channel.hpp"
#include "temp_dir.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

std::string key_of(char c) { return std::string(64, c); }

// A job dir holding a "prebuild" of `bytes` under `key`; its announcement.
AnnouncedBuild stage(const test::TempDir& dir, const std::string& job, const std::string& key,
                     const std::string& bytes) {
  dir.write(job + "/" + kJobExtensionsDir + "/" + key + "/mod.so", bytes);
  return {key, "mod", to_hex(sha256(bytes))};
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("only `built` lines before the import line are announcements") {
  const std::string sha(64, 'f');
  const std::string bytes = encode_phase_line("build") + encode_phase_line("build-end") +
                            encode_phase_line("built " + key_of('a') + " mod " + sha) +
                            encode_phase_line("import") +
                            encode_phase_line("built " + key_of('b') + " mod " + sha);
  const auto builds = announced_builds(bytes);
  REQUIRE(builds.size() == 1);
  CHECK(builds[0].key == key_of('a'));
  CHECK(builds[0].name == "mod");
  CHECK(builds[0].sha256 == sha);
  CHECK(!is_known_phase("built " + key_of('a') + " ../x " + sha));
  CHECK(!is_known_phase("built " + key_of('a') + " mod"));
  std::string why;
  CHECK(decode_result_frame(bytes + encode_result_frame("{}", "k"), "k", &why));
  CHECK(!decode_result_frame(encode_phase_line("built x y z") + encode_result_frame("{}", "k"), "k", &why));
}

TEST_CASE("a build is published when its hash still matches, and only then") {
  test::TempDir dir;
  ExtensionCache cache(dir.path() / "cache", 1ull << 30);
  const auto good = stage(dir, "job1", key_of('a'), "genuine build");
  CHECK(cache.publish(dir.path() / "job1", good) == "published");
  CHECK(cache.verify(key_of('a')));
  CHECK(slurp(dir.path() / "cache" / key_of('a') / "mod.so") == "genuine build");
  CHECK(cache.publish(dir.path() / "job1", good) == "present");

  SECTION("altered after the announcement") {
    auto altered = stage(dir, "job2", key_of('b'), "genuine");
    dir.write(std::string("job2/") + kJobExtensionsDir + "/" + key_of('b') + "/mod.so", "evil");
    CHECK(cache.publish(dir.path() / "job2", altered).rfind("refused", 0) == 0);
    CHECK(!fs::exists(dir.path() / "cache" / key_of('b')));
  }
  SECTION("replaced by a symlink to a file with the announced bytes") {
    auto linked = stage(dir, "job3", key_of('c'), "genuine");
    dir.write("elsewhere.so", "genuine");
    const auto so = dir.path() / "job3" / kJobExtensionsDir / key_of('c') / "mod.so";
    fs::remove(so);
    fs::create_symlink(dir.path() / "elsewhere.so", so);
    CHECK(cache.publish(dir.path() / "job3", linked).rfind("refused", 0) == 0);
  }
  SECTION("a FIFO is not read") {
    auto fifo = stage(dir, "job4", key_of('d'), "genuine");
    const auto path = dir.path() / "job4" / kJobExtensionsDir / key_of('d') / "mod.so";
    fs::remove(path);
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    CHECK(cache.publish(dir.path() / "job4", fifo).rfind("refused", 0) == 0);
  }
  SECTION("a corrupt entry is detected and replaced by the next genuine build") {
    fs::permissions(dir.path() / "cache" / key_of('a') / "mod.so", fs::perms::owner_all);
    std::ofstream(dir.path() / "cache" / key_of('a') / "mod.so", std::ios::app) << "x";
    CHECK(!cache.verify(key_of('a')));
    CHECK(cache.publish(dir.path() / "job1", good) == "published");
    CHECK(cache.verify(key_of('a')));
  }
}

TEST_CASE("least recently used entries go first under the cap; clear empties the cache") {
  test::TempDir dir;
  ExtensionCache cache(dir.path() / "cache", 1ull << 30);
  const std::string mb(1 << 20, 'x');
  for (char c : {'a', 'b', 'c'}) {
    REQUIRE(cache.publish(dir.path() / "job", stage(dir, "job", key_of(c), mb + c)) == "published");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  cache.touch(key_of('a'));  // now the most recent
  CHECK(cache.evict_to((2u << 20) + 4096) == 1);
  const auto left = cache.entries();
  REQUIRE(left.size() == 2);
  CHECK(left[0].key == key_of('c'));
  CHECK(left[1].key == key_of('a'));
  CHECK(cache.clear() == 2);
  CHECK(cache.entries().empty());
}
