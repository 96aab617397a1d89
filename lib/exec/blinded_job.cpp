#include "exec/blinded_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "core/file_bytes.hpp"
#include "core/hmac_sha256.hpp"
#include "exec/controller.hpp"
#include "exec/result_channel.hpp"
#include "exec/timing_witness.hpp"
#include "worker/verdict.hpp"  // header-only: the rejection's one form

namespace kbench {
namespace {

void write_all_to(const std::filesystem::path& file, const std::string& bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

// The worker's authenticated message, or nullopt (its outcome then says why).
std::optional<nlohmann::json> message_of(const WorkerOutcome& outcome) {
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (!payload) return std::nullopt;
  auto message = nlohmann::json::parse(*payload, nullptr, false);
  if (message.is_discarded() || !message.is_object()) return std::nullopt;
  return message;
}

// A trusted worker (reference or judge) that failed: nothing of the candidate ran there, so
// whatever ended it is the problem's or kbench's, never the candidate's fault.
JobResult trusted_failure(const Job& job, const char* which, const WorkerOutcome& outcome) {
  JobResult failed = interpret_outcome(job, outcome);
  failed.status = Status::problem_error;
  failed.message = fmt::format("the {} worker failed: {}", which, failed.message);
  return failed;
}

JobResult with_verdict(JobResult result, const Verdict& verdict) {
  result.status = verdict.status;
  result.message = verdict.message;
  result.diagnostics.update(verdict.diagnostics);
  return result;
}

WorkerOutcome run(WorkerLaunch launch) {
  WorkerOutcome outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Interrupted{};
  return outcome;
}

}  // namespace

bool native_isolation_enabled() {
  const char* value = std::getenv(kNativeIsolationVariable);
  return !(value && std::string(value) == "off");
}

bool every_candidate_placed_apart() {
  const char* value = std::getenv(kNativeIsolationVariable);
  return value && std::string(value) == "all";
}

void allow_native_placement(WorkerLaunch& first, const std::filesystem::path& job_dir) {
  first.args.insert(first.args.end(), {"--native-reference-out", (job_dir / "reference.work").string()});
  first.holder_name += " [reference]";  // the lock holder named by its role (lock_blame.hpp)
}

std::optional<JobResult> finish_placed_apart(
    const Job& job, const std::filesystem::path& job_dir, const WorkerOutcome& referenced,
    const std::function<WorkerLaunch(const std::filesystem::path&)>& launch_in, WorkerOutcome& candidate_outcome) {
  // 1. The reference worker (the job's first): the full and the blinded work, their digests in
  // its frame. A first worker that failed before deciding is the job's only one.
  const auto announced = message_of(referenced);
  if (!announced || !announced->contains("reference_work")) return std::nullopt;
  const auto work_file = job_dir / "reference.work";
  const std::string full = read_file(work_file);
  const std::string full_sha = (*announced)["reference_work"].value("sha256", "");
  const std::string blinded_sha = (*announced)["blinded_work"].value("sha256", "");
  if (to_hex(sha256(full)) != full_sha)
    throw std::runtime_error("the reference work changed after its worker ended: " + work_file.string());
  // Candidate code may read any file: the expected values leave the disk before it runs.
  std::filesystem::remove(work_file);
  const auto blinded_file = job_dir / "reference.blinded";
  std::filesystem::rename(job_dir / "reference.work.blinded", blinded_file);

  // 2. The candidate worker against the blinded work; its outputs committed. The witness seeds
  // (timing_witness.hpp) go to it only when it asks, after its timing.
  WorkerLaunch candidate = launch_in(job_dir);
  const auto commitment_file = job_dir / "commitment";
  candidate.args.insert(candidate.args.end(), {"--reference-in", blinded_file.string(), "--reference-sha256",
                                               blinded_sha, "--commit-out", commitment_file.string()});
  candidate.holder_name += " [candidate]";
  candidate.reveal_calls = true;  // its sampled calls' leaves are drawn here (call_reveal.hpp)
  const nlohmann::json witness = announced->value("witness", nlohmann::json());
  if (witness.is_object())
    for (const auto& seed : witness.at("seeds"))
      candidate.witness_seeds += (candidate.witness_seeds.empty() ? "" : " ") + std::to_string(seed.get<long long>());
  candidate_outcome = run(candidate);
  JobResult provisional = interpret_outcome(job, candidate_outcome);
  provisional.wall_s += referenced.wall_s;  // the job's wall time is all of its workers'
  const auto committed = message_of(candidate_outcome);
  nlohmann::json isolation = {{"mode", "blinded"},
                              {"native_code", announced->value("placement", nlohmann::json::object()).value("native_code", "")},
                              {"reference_worker_s", referenced.wall_s},
                              {"candidate_worker_s", candidate_outcome.wall_s}};
  if (candidate_outcome.witness)
    isolation["witness"] = {{"calls", witness.at("seeds").size()},
                            {"groups", std::count_if(candidate_outcome.reveals.begin(), candidate_outcome.reveals.end(),
                                                     [](const CallReveal& r) { return r.witness; })},
                            {"wall_s", candidate_outcome.witness->wall_s},
                            {"host_wait_s", candidate_outcome.witness->host_wait_s},
                            {"overhead_s", witness.at("overhead_s")}};
  if (provisional.status != Status::ok || !committed || !committed->contains("commitment")) {
    provisional.diagnostics["isolation"] = isolation;
    return provisional;  // its own failure stands; a forged one only costs it
  }
  if (witness.is_object() && !candidate_outcome.witness) {
    provisional.diagnostics["isolation"] = isolation;
    return with_verdict(std::move(provisional),
                        rejection("timing_witness", "the candidate worker never closed the timing witness's window"));
  }

  // 3. The judge, after the candidate's process tree is gone: the full work back on disk.
  const auto judge_dir = job_dir / "judge";
  write_all_to(judge_dir / "work", full);
  write_all_to(judge_dir / "provisional.json", committed->dump());
  write_all_to(judge_dir / "reveals.json", encode_call_reveals(candidate_outcome.reveals));
  WorkerLaunch judge = launch_in(judge_dir);
  judge.args.insert(judge.args.end(),
                    {"--judge", "--reference-in", (judge_dir / "work").string(), "--reference-sha256", full_sha,
                     "--commit-in", commitment_file.string(), "--commit-sha256",
                     (*committed)["commitment"].value("sha256", ""), "--provisional",
                     (judge_dir / "provisional.json").string(), "--reveals", (judge_dir / "reveals.json").string()});
  judge.holder_name += " [judge]";
  if (candidate_outcome.witness) judge.args.insert(judge.args.end(), {"--witness-sha256", candidate_outcome.witness->digest});
  const WorkerOutcome judged = run(judge);
  std::filesystem::remove(judge_dir / "work");
  if (!message_of(judged)) return trusted_failure(job, "judge", judged);
  JobResult result = interpret_outcome(job, judged);
  result.wall_s += provisional.wall_s;
  // What the process said and where it ran are the candidate worker's, not the judge's.
  for (const char* key : {"stdout_tail", "stderr_tail", "output", "sandbox"}) {
    result.diagnostics.erase(key);
    if (provisional.diagnostics.contains(key)) result.diagnostics[key] = provisional.diagnostics[key];
  }
  // The job's host peak is its largest process's (the GPU figures are the candidate worker's,
  // from its provisional frame; the judge's own are in `memory.judge`, its host peak added here).
  if (result.memory && result.memory->judge)
    result.memory->judge->host_peak_rss_bytes =
        static_cast<long long>(std::max(judged.peak_memory_bytes, judged.peak_resident_bytes));
  if (result.memory)
    for (const WorkerOutcome* o : std::initializer_list<const WorkerOutcome*>{&referenced, &candidate_outcome})
      result.memory->host_peak_rss_bytes = std::max<long long>(
          result.memory->host_peak_rss_bytes, static_cast<long long>(std::max(o->peak_memory_bytes, o->peak_resident_bytes)));
  isolation["judge_worker_s"] = judged.wall_s;
  isolation["reveals"] = candidate_outcome.reveals.size();
  result.diagnostics["isolation"] = isolation;
  // Correct, and computed inside the window: the claimed samples must allow the window.
  const auto timed = result.timings.find("candidate");
  if (result.status == Status::ok && candidate_outcome.witness && timed != result.timings.end())
    if (auto refused = witness_refusal(timed->second.samples_ms, int(witness.at("seeds").size()),
                                       candidate_outcome.witness->wall_s, witness.at("overhead_s").get<double>(),
                                       WitnessRule::for_device(job.device.is_cuda()),
                                       candidate_outcome.witness->host_wait_s)) {
      result.diagnostics["isolation"]["witness"]["exceeded"] = true;  // witness_retry.hpp
      return with_verdict(std::move(result), rejection("timing_witness", *refused));
    }
  return result;
}

}  // namespace kbench
