#include "exec/kept_reference_job.hpp"

#include <fmt/format.h>

#include <chrono>

#include "exec/controller.hpp"
#include "measure/baseline_drift.hpp"
#include "model/codec.hpp"

namespace kbench {
namespace {

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Runs the trusted worker and publishes what it measured; nullopt with `why` when it failed
// (the job then runs the full protocol, as without a store).
std::optional<KeptReference> measure_record(const KeptReferenceKey& key, const std::filesystem::path& dir,
                                            KeptReferenceStore& store, const JobAttempt& attempt,
                                            const std::string& reason, double& wall_s, std::string& why) {
  // Never the pre-started (held) process: it runs under the key's lock, which a held worker
  // would keep while it waits for its slot.
  const JobResult measured = attempt(dir, {"--reference-baselines"}, false);
  wall_s = measured.wall_s;
  if (measured.status != Status::ok || measured.timings.empty()) {
    why = fmt::format("the trusted baseline measurement failed ({}: {})", to_string(measured.status), measured.message);
    return std::nullopt;
  }
  KeptReference record;
  record.key = key;
  record.created_unix_s = unix_seconds();
  record.baselines = measured.timings;
  record.protocol = measured.protocol;
  record.baseline_notes = measured.diagnostics.value("baselines", nlohmann::json::object());
  record.reason = reason;
  store.publish(record, dir);
  return record;
}

// Why this job had the record measured (first use, a dropped record, drift), beside `refreshed`:
// that flag alone does not say whether the job paid for a first record or a second one.
void note_refresh_reason(JobResult& result, const std::string& reason) {
  if (reason.empty()) return;
  auto& kept = result.diagnostics["kept_reference"];
  if (!kept.is_object()) kept = nlohmann::json::object();
  const std::string before = kept.value("refreshed_because", std::string());
  kept["refreshed_because"] = before.empty() ? reason : before + "; then " + reason;
}

// The record's figures in place of the short sample; the fresh one stays in the diagnostics.
void use_record(JobResult& result, const KeptReference& record, KeptReferenceUse& use, KeptReferenceStore& store) {
  nlohmann::json fresh = nlohmann::json::object();
  for (const auto& [name, m] : result.timings)
    if (name != "candidate") fresh[name] = raw_measurement_json(m);
  for (const auto& [name, m] : record.baselines) result.timings[name] = m;
  if (!fresh.empty()) result.diagnostics["kept_reference"] = {{"fresh_baselines", fresh}};
  if (!record.baseline_notes.empty() && !result.diagnostics.contains("baselines"))
    result.diagnostics["baselines"] = record.baseline_notes;
  result.protocol["kept_baselines"] = record.protocol;
  use.kept = true;
  use.uses = store.note_use(record.key.digest);
  use.age_s = unix_seconds() - record.created_unix_s;
  result.kept_reference = use;
  derive_statistics(result);
}

// Drifted (or forged by the candidate's process): a fresh trusted record, then the job again
// with the full protocol; the short attempt's figures are dropped, its wall time counted.
JobResult run_full_after_drift(const std::filesystem::path& job_dir, const KeptReferenceKey& key,
                               KeptReferenceStore& store, const JobAttempt& attempt, JobResult first,
                               const std::string& reason, KeptReferenceUse use, const std::string& first_reason) {
  double refresh_s = 0;
  bool measured = false;
  const auto full_dir = job_dir / "full";
  {
    auto lock = store.lock(key.digest);
    std::string failed;
    measured = measure_record(key, store.trusted_dir(key.digest), store, attempt, reason, refresh_s, failed).has_value();
    if (measured) use.refreshed = true;
    use.refresh_s += refresh_s;
    std::filesystem::remove_all(full_dir);
    // Under the key's lock: another slot's refresh replaces the folder (store.publish).
    store.copy_artefacts(key.digest, full_dir);
  }
  JobResult full = attempt(full_dir, {}, false);
  full.wall_s += first.wall_s + refresh_s;
  full.diagnostics["kept_reference"] = {{"first_attempt", {{"status", to_string(first.status)}, {"wall_s", first.wall_s}}}};
  note_refresh_reason(full, first_reason);
  if (measured) note_refresh_reason(full, reason);
  use.fallback = reason;
  full.kept_reference = use;
  return full;
}

}  // namespace

JobResult run_with_kept_reference(const Job& job, const std::filesystem::path& job_dir, KeptReferenceStore& store,
                                  const JobAttempt& attempt, const SourceCheck& source_check,
                                  const std::function<bool()>& wait_turn) {
  KeptReferenceUse use;
  use.drift_bound = store.drift_bound();
  // Not for this job (a single job of its problem, the CPU under auto, ...): as without a store,
  // and its result says nothing about kept work.
  if (!store.off_reason(job).empty()) return attempt(job_dir, {}, true);
  const KeptReferenceKey key = store.key_for(job);
  use.key = key.digest;
  use.drift_baseline = job.settings.baselines.front();
  double extra_wall_s = 0;
  std::string why;
  std::string dropped;
  std::string measured_because;  // why this job had the record measured ("": it did not)
  std::optional<KeptReference> record;
  bool copied = false;
  bool held = true;  // the job's first worker may be its slot's pre-started one
  bool source_checked = false;
  for (;;) {
    auto lock = store.lock(key.digest);
    std::string now_dropped;
    record = store.find(key, &now_dropped);
    if (!now_dropped.empty()) dropped = now_dropped;
    // The measurement costs a trusted worker's reference run and full baseline protocol: not for
    // a candidate whose source already decides it (most of an RL batch's garbage).
    if (!record && source_check && !source_checked) {
      source_checked = true;
      if (auto decided = source_check(job_dir / "source")) {
        use.fallback = "decided by the candidate's source alone: no baseline measured";
        decided->kept_reference = use;
        return *decided;
      }
    }
    if (!record && held && wait_turn) {
      // Claimed ahead: no reference work before the slot's release; the job before it (often of
      // this key) may measure the record meanwhile, and must be able to take the lock.
      lock.unlock();
      if (!wait_turn()) throw Interrupted{};
      held = false;
      continue;
    }
    if (!record) {
      measured_because = dropped.empty() ? "first use" : dropped;
      record = measure_record(key, store.trusted_dir(key.digest), store, attempt, measured_because, use.refresh_s, why);
      use.refreshed = true;
      extra_wall_s += use.refresh_s;
    }
    // Under the key's lock, so the artefacts are this record's: another slot's refresh after a
    // drift replaces the key's folder (store.publish), and a copy beside it read a mix or threw.
    copied = record && store.copy_artefacts(key.digest, job_dir);
    break;
  }
  if (!copied) {
    // No trusted record (or its artefacts changed under us): today's full protocol.
    JobResult result = attempt(job_dir, {}, held);
    use.fallback = record ? "the kept compile artefacts changed on disk" : why;
    result.wall_s += extra_wall_s;
    result.kept_reference = use;
    note_refresh_reason(result, measured_because);
    return result;
  }
  JobResult result = attempt(job_dir, {"--short-baselines"}, held);
  result.wall_s += extra_wall_s;
  if (is_correct(result.status)) {
    const auto fresh = result.timings.find(use.drift_baseline);
    const auto kept = record->baselines.find(use.drift_baseline);
    std::string refused = "no fresh " + use.drift_baseline + " sample to check the kept one against";
    if (fresh != result.timings.end() && kept != record->baselines.end()) {
      const DriftCheck check = check_baseline_drift(samples_by_round(fresh->second), samples_by_round(kept->second),
                                                    store.drift_bound());
      use.drift = check.drift;
      use.drift_ci = check.ratio_ci;
      refused = check.reason;
    }
    if (!refused.empty())
      return run_full_after_drift(job_dir, key, store, attempt, std::move(result), refused, use, measured_because);
  }
  use_record(result, *record, use, store);
  note_refresh_reason(result, measured_because);
  return result;
}

JobResult fill_kept_reference(const Job& job, KeptReferenceStore& store, const JobAttempt& attempt) {
  JobResult result;
  result.job = job;
  KeptReferenceUse use;
  use.drift_bound = store.drift_bound();
  try {
    if (const std::string off = store.off_reason(job); !off.empty()) {
      result.status = Status::problem_error;
      result.message = "the problem does not keep reference work: " + off;
      return result;
    }
    const KeptReferenceKey key = store.key_for(job);
    use.key = key.digest;
    auto lock = store.lock(key.digest);
    std::string dropped;
    if (store.find(key, &dropped)) {
      result.status = Status::ok;
      result.message = "the record was already kept";
      result.kept_reference = use;
      return result;
    }
    std::string why;
    const std::string reason = dropped.empty() ? "reference fill" : dropped;
    const auto record = measure_record(key, store.trusted_dir(key.digest), store, attempt, reason, use.refresh_s, why);
    result.wall_s = use.refresh_s;
    use.refreshed = record.has_value();
    result.kept_reference = use;
    if (record) note_refresh_reason(result, reason);
    result.status = record ? Status::ok : Status::problem_error;
    result.message = record ? "measured by a trusted worker" : why;
  } catch (const std::exception& e) {  // Interrupted is no std::exception: it ends the run
    result.status = Status::problem_error;
    result.message = std::string("the reference fill failed: ") + e.what();
  }
  return result;
}

}  // namespace kbench
