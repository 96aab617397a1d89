#include "cache/kept_reference_store.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "core/file_bytes.hpp"
#include "core/hmac_sha256.hpp"
#include "model/codec.hpp"

namespace kbench {
namespace fs = std::filesystem;
namespace {

// The artefact folders: the worker's private cache dirs (exec/sandbox.cpp) by their names there.
constexpr const char* kArtefactDirs[] = {"inductor", "triton"};

// Every regular file under `root`, by its path relative to `root`, with its SHA-256. Links are
// not followed, nor kept: an artefact is a file the trusted worker wrote.
std::map<std::string, std::string> hash_tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  if (!fs::is_directory(root)) return files;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    std::error_code error;
    if (item.is_symlink(error) || !item.is_regular_file(error)) continue;
    if (const auto bytes = read_file_bytes(item.path()))
      files[item.path().lexically_relative(root).string()] = to_hex(sha256(*bytes));
  }
  return files;
}

}  // namespace

std::optional<KeepReference> keep_reference_from_string(const std::string& text) {
  if (text == "auto") return KeepReference::automatic;
  if (text == "on") return KeepReference::on;
  if (text == "off") return KeepReference::off;
  return std::nullopt;
}

KeptReferenceStore::KeptReferenceStore(fs::path dir, KeepReference mode, double drift_bound,
                                       std::function<nlohmann::json()> environment)
    : dir_(std::move(dir)), mode_(mode), drift_bound_(drift_bound), environment_(std::move(environment)) {}

void KeptReferenceStore::expect(const Job& job) {
  std::lock_guard lock(mutex_);
  ++jobs_per_problem_[job.problem_id];
}

std::string KeptReferenceStore::off_reason(const Job& job) const {
  if (mode_ == KeepReference::off) return "off (--keep-reference off)";
  if (job.settings.baselines.empty()) return "no baseline to keep";
  if (job.timing.mode == TimingMode::kernelbench) return "KernelBench timing mode (a mean over fixed trials)";
  if (mode_ == KeepReference::automatic && !job.device.is_cuda())
    return "the CPU under --keep-reference auto (host timing is too noisy for the drift check to hold)";
  std::lock_guard lock(mutex_);
  const auto count = jobs_per_problem_.find(job.problem_id);
  if (count == jobs_per_problem_.end() || count->second < 2) return "a single job of its problem";
  return "";
}

KeptReferenceKey KeptReferenceStore::key_for(const Job& job) {
  const std::string file = job.problem_file.string();
  std::string hash;
  {
    std::lock_guard lock(mutex_);
    if (const auto known = problem_sha256_.find(file); known != problem_sha256_.end()) hash = known->second;
  }
  if (hash.empty()) {
    const auto bytes = read_file_bytes(job.problem_file);
    if (!bytes) throw std::runtime_error("cannot read the problem file " + file);
    hash = to_hex(sha256(*bytes));
    std::lock_guard lock(mutex_);
    problem_sha256_[file] = hash;
  }
  return kept_reference_key(job, hash, environment_());
}

std::unique_lock<std::mutex> KeptReferenceStore::lock(const std::string& digest) {
  std::mutex* key_mutex = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto& slot = key_locks_[digest];
    if (!slot) slot = std::make_unique<std::mutex>();
    key_mutex = slot.get();
  }
  return std::unique_lock(*key_mutex);
}

std::optional<KeptReference> KeptReferenceStore::find(const KeptReferenceKey& key, std::string* dropped) {
  std::lock_guard lock(mutex_);
  const auto entry = entries_.find(key.digest);
  if (entry == entries_.end()) return std::nullopt;
  std::map<std::string, std::string> now;
  for (const char* sub : kArtefactDirs)
    for (const auto& [path, sha] : hash_tree(dir_ / key.digest / sub)) now[std::string(sub) + "/" + path] = sha;
  if (now != entry->second.artefacts) {
    if (dropped) *dropped = "its compile artefacts changed on disk after the trusted worker wrote them";
    entries_.erase(entry);
    return std::nullopt;
  }
  return entry->second.record;
}

void KeptReferenceStore::publish(const KeptReference& record, const fs::path& trusted_dir) {
  const fs::path folder = dir_ / record.key.digest;
  const fs::path staging = dir_ / (record.key.digest + ".staging");
  fs::remove_all(staging);
  fs::create_directories(staging);
  Entry entry{record, {}};
  for (const char* sub : kArtefactDirs) {
    const fs::path from = trusted_dir / "cache" / sub;
    if (fs::is_directory(from))
      fs::copy(from, staging / sub, fs::copy_options::recursive | fs::copy_options::skip_symlinks);
    for (const auto& [path, sha] : hash_tree(staging / sub)) entry.artefacts[std::string(sub) + "/" + path] = sha;
  }
  {
    std::lock_guard lock(mutex_);
    fs::remove_all(folder);
    fs::rename(staging, folder);
    entries_[record.key.digest] = entry;
    write_record(record);
  }
}

bool KeptReferenceStore::copy_artefacts(const std::string& digest, const fs::path& job_dir) {
  std::map<std::string, std::string> expected;
  {
    std::lock_guard lock(mutex_);
    const auto entry = entries_.find(digest);
    if (entry == entries_.end()) return false;
    expected = entry->second.artefacts;
  }
  for (const char* sub : kArtefactDirs) {
    const fs::path from = dir_ / digest / sub;
    const fs::path to = job_dir / "cache" / sub;
    if (!fs::is_directory(from)) continue;
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing | fs::copy_options::skip_symlinks);
    // Checked on the copy the worker will read, so nothing can change between check and use
    // but the job's own candidate, in its own job dir.
    for (const auto& [path, sha] : hash_tree(to)) {
      const auto want = expected.find(std::string(sub) + "/" + path);
      if (want == expected.end() || want->second != sha) {
        fs::remove_all(to);
        fs::create_directories(to);
        return false;
      }
    }
  }
  return true;
}

fs::path KeptReferenceStore::trusted_dir(const std::string& digest) {
  int run = 0;
  {
    std::lock_guard lock(mutex_);
    run = ++trusted_runs_;
  }
  const fs::path dir = dir_ / "trusted" / fmt::format("{}-{}", digest.substr(0, 16), run);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int KeptReferenceStore::note_use(const std::string& digest) {
  std::lock_guard lock(mutex_);
  const auto entry = entries_.find(digest);
  if (entry == entries_.end()) return 0;
  ++entry->second.record.uses;
  write_record(entry->second.record);
  return entry->second.record.uses;
}

// For people and tools reading the store; the controller never reads it back (see above).
// Called with mutex_ held.
void KeptReferenceStore::write_record(const KeptReference& record) {
  const fs::path file = dir_ / record.key.digest / "record.json";
  const fs::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << to_json(record).dump(2) << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + partial.string());
  }
  fs::rename(partial, file);
}

}  // namespace kbench
