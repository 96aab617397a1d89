#pragma once
// The run's store of kept reference work (model/kept_reference.hpp; docs/timing.md#kept-
// reference), under `<work-dir>/kept-reference/<key>/`: `record.json` (the baselines' trusted
// timings) and `inductor/`, `triton/` (the compile artefacts of the trusted worker that
// measured them). Only the controller writes it, and only from a worker that never loaded
// candidate code; jobs get a *copy* of the artefacts in their own job dir, so nothing a
// candidate writes reaches a later baseline (docs/threat-model.md#kept-reference-work).
//
// What the controller trusts is what it holds in memory: the record it published and the
// SHA-256 of every artefact file. A file changed on disk (a candidate without Landlock) is
// noticed at the next copy and the record is measured again; records left by an earlier run
// are not read (their writer cannot be vouched for), so the store is as long-lived as the run
// or the Evaluator that owns it.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/job.hpp"
#include "model/kept_reference.hpp"

namespace kbench {

// `--keep-reference`: auto (repeated problems on a GPU), on (repeated problems, any device), off.
enum class KeepReference { automatic, on, off };
std::optional<KeepReference> keep_reference_from_string(const std::string& text);

class KeptReferenceStore {
 public:
  // `environment`: the run's probe (versions, device model), asked for when a key is first made.
  // `drift_bound`: measure/baseline_drift.hpp.
  KeptReferenceStore(std::filesystem::path dir, KeepReference mode, double drift_bound,
                     std::function<nlohmann::json()> environment);

  // One more job of `job`'s problem in the run (the plan's, and every job pushed later).
  void expect(const Job& job);
  // Why `job` does not use kept work ("" when it does): off, a single job of its problem, the
  // CPU under `auto`, no baseline, KernelBench timing mode.
  std::string off_reason(const Job& job) const;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  [[nodiscard]] double drift_bound() const { return drift_bound_; }

  KeptReferenceKey key_for(const Job& job);
  // Held while a key's record is looked up, measured or refreshed: two slots never measure
  // the same record at once.
  std::unique_lock<std::mutex> lock(const std::string& digest);

  // This run's record for `key`, if its artefacts are still the ones published; a changed
  // artefact drops the record (and `dropped` says why).
  std::optional<KeptReference> find(const KeptReferenceKey& key, std::string* dropped = nullptr);
  // Publishes what a trusted worker measured in `trusted_dir` (its job dir): the record, and its
  // `cache/inductor` and `cache/triton` as the key's artefacts, replacing any earlier ones.
  void publish(const KeptReference& record, const std::filesystem::path& trusted_dir);
  // Copies the key's artefacts into `job_dir/cache/{inductor,triton}` (the worker's private
  // cache dirs), checking each file's SHA-256; false (nothing usable) when one changed.
  bool copy_artefacts(const std::string& digest, const std::filesystem::path& job_dir);
  // A new, empty folder for a trusted worker measuring `digest`, under the store and so outside
  // every job dir: no candidate's Landlock domain reaches it.
  std::filesystem::path trusted_dir(const std::string& digest);
  // One more job served by the record; the new count.
  int note_use(const std::string& digest);

 private:
  struct Entry {
    KeptReference record;
    std::map<std::string, std::string> artefacts;  // path under the key's folder -> SHA-256
  };
  void write_record(const KeptReference& record);

  std::filesystem::path dir_;
  KeepReference mode_;
  double drift_bound_;
  std::function<nlohmann::json()> environment_;
  mutable std::mutex mutex_;  // guards everything below
  std::map<std::string, int> jobs_per_problem_;
  std::map<std::string, std::string> problem_sha256_;  // problem file -> its hash, once per run
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::unique_ptr<std::mutex>> key_locks_;
  int trusted_runs_ = 0;
};

}  // namespace kbench
