#pragma once
// The shared cache of built `load_inline` extensions (docs/extensions.md), written only by the
// controller. One folder per key, `<dir>/<key>/{<name>.so, manifest.json}`, published by an
// atomic rename of a complete staging folder; the manifest's mtime is the entry's last use
// (LRU eviction under a size cap). Workers read it through Landlock, which denies them writes.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

struct ExtensionCacheEntry {
  std::string key;
  std::string name;
  std::string sha256;
  std::uint64_t bytes = 0;
  double last_used_unix = 0;
};

// The folder of a job dir that holds its prebuilds (`<key>/<name>.so`) and its copies of cached
// modules. Its name contains "torch_extensions" like torch's own build folder, so modules loaded
// from it are recognised as extensions wherever that folder name is the test.
inline constexpr const char* kJobExtensionsDir = "torch_extensions-kbench";

// A prebuild a worker announced before its candidate was imported.
struct AnnouncedBuild {
  std::string key;
  std::string name;
  std::string sha256;
};

// The `built` phase lines before the `import` line: only those were written by kbench's own
// code (nothing of the candidate had run); later ones may be the candidate's.
std::vector<AnnouncedBuild> announced_builds(const std::string& channel_bytes);

// kbench's cache root: $KBENCH_CACHE_DIR, else $XDG_CACHE_HOME/kbench, else ~/.cache/kbench (the
// extension cache and the bytecode cache are folders of it).
std::filesystem::path kbench_cache_root();

class ExtensionCache {
 public:
  // $KBENCH_CACHE_DIR/extensions, else $XDG_CACHE_HOME/kbench/extensions, else
  // ~/.cache/kbench/extensions.
  static std::filesystem::path default_dir();
  // KBENCH_EXTENSION_CACHE_MB (MiB; 0 turns the cache off), else 4096 MiB.
  static std::uint64_t default_max_bytes();

  ExtensionCache(std::filesystem::path dir, std::uint64_t max_bytes);
  const std::filesystem::path& dir() const { return dir_; }
  std::uint64_t max_bytes() const { return max_bytes_; }

  // Copies `<job_dir>/<kJobExtensionsDir>/<key>/<name>.so` in when its SHA-256 is still `sha256` (the
  // hash the worker announced before the candidate ran), then evicts down to the cap.
  // Returns "published", "present" or "refused: <why>".
  std::string publish(const std::filesystem::path& job_dir, const AnnouncedBuild& build);
  // Marks an entry used now (LRU). Unknown keys are ignored.
  void touch(const std::string& key);
  // Entries, least recently used first.
  std::vector<ExtensionCacheEntry> entries() const;
  // Removes least recently used entries until the total is at most `max_bytes`; the count.
  std::size_t evict_to(std::uint64_t max_bytes);
  // Removes every entry and leftover staging folder; the number of entries removed.
  std::size_t clear();
  // The entry's artefact matches its manifest.
  bool verify(const std::string& key) const;

 private:
  void remove_entry(const std::filesystem::path& entry);
  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
};

// After a job: publishes what it announced and marks the entries it loaded as used.
// `extension_build` is the worker's diagnostics.extension_build (only its keys are read, to
// mark use; it is the candidate's to forge, and forging it changes nothing but LRU order).
nlohmann::json publish_job_builds(ExtensionCache& cache, const std::filesystem::path& job_dir,
                                  const std::string& channel_bytes,
                                  const nlohmann::json& extension_build);

}  // namespace kbench
