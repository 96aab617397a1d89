#include "cache/extension_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "core/hmac_sha256.hpp"
#include "core/version.hpp"
#include "exec/result_channel.hpp"

namespace kbench {
namespace fs = std::filesystem;
namespace {

constexpr std::uint64_t kMaxArtefactBytes = 1ull << 30;

bool is_key(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Reads a regular file without following a final symlink and without blocking on a FIFO,
// at most kMaxArtefactBytes; nullopt otherwise.
std::optional<std::string> read_regular(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && std::uint64_t(st.st_size) <= kMaxArtefactBytes) {
    std::string bytes;
    char buffer[1 << 16];
    for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) {
      bytes.append(buffer, std::size_t(n));
      if (bytes.size() > kMaxArtefactBytes) break;
    }
    if (bytes.size() <= kMaxArtefactBytes) out = std::move(bytes);
  }
  close(fd);
  return out;
}

nlohmann::json read_manifest(const fs::path& entry) {
  const auto text = read_regular(entry / "manifest.json");
  if (!text) return nullptr;
  return nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

std::string random_suffix() {
  std::random_device device;
  return fmt::format("{:08x}{:08x}", device(), device());
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<AnnouncedBuild> announced_builds(const std::string& channel_bytes) {
  std::vector<AnnouncedBuild> builds;
  PhaseReader reader;
  for (const auto& phase : reader.next(channel_bytes)) {
    if (phase == kImportPhase) break;
    if (phase.rfind("built ", 0) != 0 || !is_known_phase(phase)) continue;
    AnnouncedBuild build;
    build.key = phase.substr(6, 64);
    const auto space = phase.find(' ', 71);
    build.name = phase.substr(71, space - 71);
    build.sha256 = phase.substr(space + 1);
    builds.push_back(build);
  }
  return builds;
}

fs::path kbench_cache_root() {
  if (const char* root = std::getenv("KBENCH_CACHE_DIR"); root && *root) return fs::path(root);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kbench";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "kbench";
}

fs::path ExtensionCache::default_dir() { return kbench_cache_root() / "extensions"; }

std::uint64_t ExtensionCache::default_max_bytes() {
  const char* mb = std::getenv("KBENCH_EXTENSION_CACHE_MB");
  if (!mb || !*mb) return 4096ull << 20;
  char* end = nullptr;
  const double value = std::strtod(mb, &end);
  if (end == mb || *end || !(value >= 0) || value > 1e9) return 4096ull << 20;
  return std::uint64_t(value * double(1 << 20));
}

ExtensionCache::ExtensionCache(fs::path dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

bool ExtensionCache::verify(const std::string& key) const {
  const fs::path entry = dir_ / key;
  const auto manifest = read_manifest(entry);
  if (!manifest.is_object() || manifest.value("key", "") != key) return false;
  const auto bytes = read_regular(entry / manifest.value("file", "-"));
  return bytes && to_hex(sha256(*bytes)) == manifest.value("sha256", "");
}

void ExtensionCache::remove_entry(const fs::path& entry) {
  // Renamed away first, so no reader ever sees a half-removed entry under its key.
  std::error_code ec;
  const fs::path trash = dir_ / (".trash-" + random_suffix());
  fs::rename(entry, trash, ec);
  fs::remove_all(ec ? entry : trash, ec);
}

std::string ExtensionCache::publish(const fs::path& job_dir, const AnnouncedBuild& build) {
  if (!is_key(build.key) || !is_key(build.sha256)) return "refused: malformed announcement";
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return "refused: cannot create " + dir_.string() + ": " + ec.message();
  const fs::path entry = dir_ / build.key;
  if (fs::exists(entry, ec)) {
    if (verify(build.key)) {
      touch(build.key);
      return "present";
    }
    remove_entry(entry);  // corrupted or replaced behind kbench's back: replaced by this build
  }
  const auto bytes = read_regular(job_dir / kJobExtensionsDir / build.key / (build.name + ".so"));
  if (!bytes) return "refused: the job's build is gone or not a regular file";
  if (to_hex(sha256(*bytes)) != build.sha256)
    return "refused: the job's build no longer has the hash announced before the candidate ran";
  const fs::path staging = dir_ / (".staging-" + random_suffix());
  fs::create_directories(staging, ec);
  if (ec) return "refused: cannot create a staging folder: " + ec.message();
  {
    std::ofstream so(staging / (build.name + ".so"), std::ios::binary);
    so.write(bytes->data(), std::streamsize(bytes->size()));
    const nlohmann::json manifest = {{"key", build.key},           {"name", build.name},
                                     {"file", build.name + ".so"}, {"sha256", build.sha256},
                                     {"bytes", bytes->size()},     {"created_unix", unix_now()},
                                     {"kbench_version", kVersion}};
    std::ofstream(staging / "manifest.json") << manifest.dump(2) << "\n";
    if (!so) {
      fs::remove_all(staging, ec);
      return "refused: cannot write the cache (disk full?)";
    }
  }
  fs::permissions(staging / (build.name + ".so"), fs::perms::owner_read | fs::perms::group_read |
                                                      fs::perms::others_read, ec);
  // Atomic: readers see no entry or a complete one. A concurrent publisher of the same key wins
  // the race harmlessly (same key, same sources, a hash-verified build either way).
  fs::rename(staging, entry, ec);
  if (ec) {
    fs::remove_all(staging, ec);
    return "present";
  }
  evict_to(max_bytes_);
  return "published";
}

void ExtensionCache::touch(const std::string& key) {
  if (!is_key(key)) return;
  const fs::path manifest = dir_ / key / "manifest.json";
  utimensat(AT_FDCWD, manifest.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

std::vector<ExtensionCacheEntry> ExtensionCache::entries() const {
  std::vector<ExtensionCacheEntry> out;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir_, ec)) {
    const std::string key = item.path().filename().string();
    if (!is_key(key) || !item.is_directory(ec)) continue;
    ExtensionCacheEntry entry;
    entry.key = key;
    const auto manifest = read_manifest(item.path());
    if (manifest.is_object()) {
      entry.name = manifest.value("name", "");
      entry.sha256 = manifest.value("sha256", "");
    }
    struct stat st {};
    if (lstat((item.path() / "manifest.json").c_str(), &st) == 0)
      entry.last_used_unix = double(st.st_mtim.tv_sec) + 1e-9 * double(st.st_mtim.tv_nsec);
    for (const auto& file : fs::directory_iterator(item.path(), ec))
      if (file.is_regular_file(ec)) entry.bytes += file.file_size(ec);
    out.push_back(entry);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.last_used_unix < b.last_used_unix; });
  return out;
}

std::size_t ExtensionCache::evict_to(std::uint64_t max_bytes) {
  auto all = entries();
  std::uint64_t total = 0;
  for (const auto& e : all) total += e.bytes;
  std::size_t removed = 0;
  for (const auto& e : all) {
    if (total <= max_bytes) break;
    remove_entry(dir_ / e.key);
    total -= std::min(total, e.bytes);
    ++removed;
  }
  return removed;
}

std::size_t ExtensionCache::clear() {
  std::size_t removed = 0;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& item : fs::directory_iterator(dir_, ec)) {
    const std::string name = item.path().filename().string();
    if (is_key(name)) ++removed;
    if (is_key(name) || name.rfind(".staging-", 0) == 0 || name.rfind(".trash-", 0) == 0)
      doomed.push_back(item.path());
  }
  for (const auto& path : doomed) remove_entry(path);
  return removed;
}

nlohmann::json publish_job_builds(ExtensionCache& cache, const fs::path& job_dir,
                                  const std::string& channel_bytes, const nlohmann::json& extension_build) {
  nlohmann::json report = nlohmann::json::object();
  for (const auto& build : announced_builds(channel_bytes))
    report[build.key] = cache.publish(job_dir, build);
  if (extension_build.is_array())
    for (const auto& record : extension_build)
      if (record.is_object() && record.value("hit", false) && record.contains("key") && record["key"].is_string())
        cache.touch(record["key"].get<std::string>());
  return report;
}

}  // namespace kbench
