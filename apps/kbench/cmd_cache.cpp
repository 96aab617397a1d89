// `kbench cache info|list|clear [--dir DIR]`: the shared extension build cache
// (docs/extensions.md).
#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <memory>

#include "cache/extension_cache.hpp"
#include "commands.hpp"

namespace kbench::cli {
namespace {

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.1f} MiB", double(bytes) / double(1 << 20)); }

ExtensionCache open_cache(const std::string& dir) {
  return ExtensionCache(dir.empty() ? ExtensionCache::default_dir() : std::filesystem::path(dir),
                        ExtensionCache::default_max_bytes());
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("cache", "The shared build cache of load_inline extensions");
  cmd->require_subcommand(1);
  auto add = [&](const char* name, const char* what) {
    auto* sub = cmd->add_subcommand(name, what);
    sub->add_option("--dir", *dir, "Cache folder (default: $KBENCH_CACHE_DIR/extensions or ~/.cache/kbench/extensions)")
        ->type_name("DIR");
    return sub;
  };
  add("info", "Folder, entries, size and cap")->callback([dir] {
    const auto cache = open_cache(*dir);
    std::uint64_t total = 0;
    const auto entries = cache.entries();
    for (const auto& e : entries) total += e.bytes;
    std::printf("dir: %s\nentries: %zu\nsize: %s\ncap: %s (KBENCH_EXTENSION_CACHE_MB)\n", cache.dir().c_str(),
                entries.size(), megabytes(total).c_str(), megabytes(cache.max_bytes()).c_str());
  });
  add("list", "One line per entry, least recently used first: key, module name, size, last use, hash check")
      ->callback([dir] {
        const auto cache = open_cache(*dir);
        for (const auto& e : cache.entries()) {
          const std::time_t when = std::time_t(e.last_used_unix);
          char stamp[32] = "?";
          std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&when));
          std::printf("%s  %-24s %10s  %s  %s\n", e.key.c_str(), e.name.c_str(), megabytes(e.bytes).c_str(),
                      stamp, cache.verify(e.key) ? "ok" : "CORRUPT (evicted at its next publication)");
        }
      });
  add("clear", "Remove every entry")->callback([dir] {
    auto cache = open_cache(*dir);
    const std::size_t removed = cache.clear();
    std::printf("removed %zu entries from %s\n", removed, cache.dir().c_str());
  });
}

}  // namespace kbench::cli
