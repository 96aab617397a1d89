#include "exec/blinded_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/hmac_sha256.hpp"
#include "exec/controller.hpp"
#include "exec/result_channel.hpp"

namespace kbench {
namespace {

std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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

WorkerOutcome run(WorkerLaunch launch) {
  WorkerOutcome outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Interrupted{};
  return outcome;
}

}  // namespace

bool blinded_isolation_enabled() {
  const char* value = std::getenv("KBENCH_NATIVE_ISOLATION");
  return value && std::string(value) == "blinded";
}

bool may_run_native_code(const std::filesystem::path& candidate_file) {
  const std::string source = read_all(candidate_file);
  for (const char* marker : {"load_inline", "cpp_extension", "ctypes", "cffi", "load_library", "/proc/self/mem"})
    if (source.find(marker) != std::string::npos) return true;
  return false;
}

JobResult run_blinded_job(const Job& job, const std::filesystem::path& job_dir,
                          const std::function<WorkerLaunch(const std::filesystem::path&)>& launch_in,
                          WorkerOutcome& candidate_outcome) {
  // 1. The reference worker: the full and the blinded work, their digests in its frame.
  const auto reference_dir = job_dir / "reference";
  WorkerLaunch reference = launch_in(reference_dir);
  reference.args.insert(reference.args.end(), {"--reference-out", (reference_dir / "work").string()});
  const WorkerOutcome referenced = run(reference);
  const auto announced = message_of(referenced);
  if (!announced || !announced->contains("reference_work")) return trusted_failure(job, "reference", referenced);
  const std::string full = read_all(reference_dir / "work");
  const std::string full_sha = (*announced)["reference_work"].value("sha256", "");
  const std::string blinded_sha = (*announced)["blinded_work"].value("sha256", "");
  if (to_hex(sha256(full)) != full_sha)
    throw std::runtime_error("the reference work changed after its worker ended: " + (reference_dir / "work").string());
  // Candidate code may read any file: the expected values leave the disk before it runs.
  std::filesystem::remove(reference_dir / "work");
  const auto blinded_file = job_dir / "reference.blinded";
  std::filesystem::rename(reference_dir / "work.blinded", blinded_file);

  // 2. The candidate worker against the blinded work; its outputs committed.
  WorkerLaunch candidate = launch_in(job_dir);
  const auto commitment_file = job_dir / "commitment";
  candidate.args.insert(candidate.args.end(), {"--reference-in", blinded_file.string(), "--reference-sha256",
                                               blinded_sha, "--commit-out", commitment_file.string()});
  candidate_outcome = run(candidate);
  JobResult provisional = interpret_outcome(job, candidate_outcome);
  const auto committed = message_of(candidate_outcome);
  nlohmann::json isolation = {{"mode", "blinded"}, {"reference_worker_s", referenced.wall_s}};
  if (provisional.status != Status::ok || !committed || !committed->contains("commitment")) {
    provisional.diagnostics["isolation"] = isolation;
    return provisional;  // its own failure stands; a forged one only costs it
  }

  // 3. The judge, after the candidate's process tree is gone: the full work back on disk.
  const auto judge_dir = job_dir / "judge";
  write_all_to(judge_dir / "work", full);
  write_all_to(judge_dir / "provisional.json", committed->dump());
  WorkerLaunch judge = launch_in(judge_dir);
  judge.args.insert(judge.args.end(),
                    {"--judge", "--reference-in", (judge_dir / "work").string(), "--reference-sha256", full_sha,
                     "--commit-in", commitment_file.string(), "--commit-sha256",
                     (*committed)["commitment"].value("sha256", ""), "--provisional",
                     (judge_dir / "provisional.json").string()});
  const WorkerOutcome judged = run(judge);
  std::filesystem::remove(judge_dir / "work");
  if (!message_of(judged)) return trusted_failure(job, "judge", judged);
  JobResult result = interpret_outcome(job, judged);
  // The job's host peak is its largest process's (the GPU figures are the candidate worker's,
  // from its provisional frame).
  if (result.memory)
    for (const WorkerOutcome* o : std::initializer_list<const WorkerOutcome*>{&referenced, &candidate_outcome})
      result.memory->host_peak_rss_bytes = std::max<long long>(
          result.memory->host_peak_rss_bytes, static_cast<long long>(std::max(o->peak_memory_bytes, o->peak_resident_bytes)));
  isolation["judge_worker_s"] = judged.wall_s;
  result.diagnostics["isolation"] = isolation;
  return result;
}

}  // namespace kbench
