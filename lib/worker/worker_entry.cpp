#include "worker/worker_entry.hpp"

#include <ATen/Parallel.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include "core/file_bytes.hpp"
#include "core/hmac_sha256.hpp"
#include "core/error.hpp"
#include "core/seconds_since.hpp"
#include "exec/blinded_job.hpp"
#include "exec/result_channel.hpp"
#include "integrity/integrity_monitor.hpp"
#include "integrity/kernel_share.hpp"
#include "integrity/static_analysis.hpp"
#include "measure/cuda_driver.hpp"
#include "model/codec.hpp"
#include "exec/memory_plan.hpp"
#include "worker/evaluation.hpp"
#include "worker/judge.hpp"
#include "worker/reference_work.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/gpu_lock_hooks.hpp"
#include "worker/extension_builds.hpp"
#include "worker/fresh_inputs.hpp"
#include "worker/problem_context.hpp"
#include "worker/phase_clock.hpp"
#include "worker/phase_signal.hpp"
#include "worker/problem_validation.hpp"
#include "worker/source_verdict.hpp"
#include "worker/python_runtime.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// The frame's key: read from the controller's pipe before candidate code can run, kept only in
// this process's memory (never in the job file, the environment or argv).
std::string g_key;

void read_key(int key_fd) {
  char buffer[64];
  for (ssize_t n; (n = read(key_fd, buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    g_key.append(buffer, std::size_t(n));
  }
  close(key_fd);
}

// Only the worker process itself delivers. A child the candidate forks (os.fork during import)
// holds a copy of this stack and would otherwise unwind back into the harness and write its own
// frame, with the right key, in place of the worker's.
pid_t g_worker_pid = -1;
int g_result_fd = -1;

// pthread_atfork child handler: Python's os.fork goes through fork(3), so it runs this before
// any Python code runs in the child. Only async-signal-safe calls here.
void close_channel_in_child() {
  if (g_result_fd >= 0) close(g_result_fd);
  g_result_fd = -1;
  set_phase_channel(-1);
  set_witness_channel(-1);  // the parent's copy stays open: a child cannot ask in its place
}

constexpr int kForkedChildExit = 4;

[[noreturn]] void deliver(const nlohmann::json& message) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (getpid() != g_worker_pid || g_result_fd < 0) _exit(kForkedChildExit);
  const bool written = write_all(g_result_fd, encode_result_frame(message.dump(), g_key));
  close(g_result_fd);
  _exit(written ? 0 : 1);
}

// The heavy imports, timed apart from the evaluation: that split is how the controller tells
// harness overhead from compile and device work (docs/architecture.md).
void import_torch_and_triton() {
  pybind11::module_::import("torch");
  try {
    pybind11::module_::import("triton");
  } catch (const pybind11::error_already_set&) {
    // Triton is optional for torch-only candidates; the evaluation reports what is missing.
  }
}

void start_python_with_imports() {
  start_python();
  import_torch_and_triton();
}

// Whether this worker evaluates the job's candidate, so that its source may decide the job
// before torch is imported: not the trusted baseline measurement nor a reference-only worker.
bool evaluates_candidate(const UnitPlacement& placement) {
  return !placement.reference_baselines && placement.reference_out.empty();
}

void announce_lock_phase(GpuLock::Mode mode) {
  const std::string& phase = PhaseClock::instance().current();
  const char* name = mode == GpuLock::Mode::none ? "none" : mode == GpuLock::Mode::shared ? "shared" : "exclusive";
  try {
    announce_phase(std::string(kLockPrefix) + name + " " + (phase.empty() ? "setup" : phase));
  } catch (const std::invalid_argument&) {
    // A phase name the channel does not accept: the controller keeps the last one it had.
  }
}

// Binds the channel to this process: close-on-exec so programs the candidate starts do not
// inherit it, closed in forked children, and refused by deliver() from any other pid.
void bind_channel(int result_fd, int witness_fd = -1) {
  fcntl(result_fd, F_SETFD, FD_CLOEXEC);
  g_worker_pid = getpid();
  g_result_fd = result_fd;
  set_phase_channel(result_fd);
  // Who holds the GPU lock, in which phase, for the waits the controller charges and the
  // whereabouts of a stopped job's workers (lock_blame.hpp): on each lock change and each phase.
  GpuLock::instance().set_observer(announce_lock_phase);
  PhaseClock::instance().set_observer([](const std::string&) { announce_lock_phase(GpuLock::instance().mode()); });
  if (witness_fd >= 0) {
    fcntl(witness_fd, F_SETFD, FD_CLOEXEC);
    set_witness_channel(witness_fd);
  }
  pthread_atfork(nullptr, nullptr, close_channel_in_child);
}

// The whole of `file`, refused unless its SHA-256 is `sha256` (the digest its writer reported).
std::string read_verified(const std::filesystem::path& file, const std::string& sha256_hex) {
  std::string bytes = read_file(file);
  if (to_hex(sha256(bytes)) != sha256_hex)
    throw std::runtime_error(file.string() + " is not the one its SHA-256 names");
  return bytes;
}

// Written whole under a temporary name, then renamed; returns its size and SHA-256.
nlohmann::json write_document(const std::filesystem::path& out, const std::string& bytes) {
  const auto partial = std::filesystem::path(out.string() + ".partial");
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), std::streamsize(bytes.size()));
    if (!file.flush()) throw std::runtime_error("cannot write " + partial.string());
  }
  std::filesystem::rename(partial, out);
  return {{"bytes", bytes.size()}, {"sha256", to_hex(sha256(bytes))}};
}

// CPU work on what is already on the host (writing and hashing gigabytes at full size, the
// judge's comparisons) runs with the GPU lock let go, in a GpuLockScope(none): no timer waits for
// it. The scope takes the lock back before the frame, since from the frame on the controller
// holds it for this worker's CUDA teardown (exec/worker_process.cpp), which it can do only beside
// another shared holder, never while a timer holds it.

nlohmann::json write_reference_work(const Job& job, const std::filesystem::path& out, bool defer_baselines = false,
                                    bool short_baselines = false) {
  const EncodedReferenceWork work = run_reference_unit(job, defer_baselines, short_baselines);
  const GpuLockScope cpu_work(GpuLock::Mode::none);  // the encoding copied the last device data
  nlohmann::json message = {{"reference_work", write_document(out, work.full)},
                            {"blinded_work", write_document(out.string() + ".blinded", work.blinded)}};
  if (!work.witness.is_null()) message["witness"] = work.witness;
  return message;
}

// Why this job's candidate must not share a process with its expected values, or "". Runs
// before any candidate code; an analysis that fails counts as native (fail closed).
std::string native_code_of(const Job& job) {
  try {
    const StaticAnalysis analysis = analyze_candidate_source(job.candidate_file);
    if (std::string native = native_code_reason(analysis); !native.empty()) return native;
    const std::string host_reach =
        !job.device.is_cuda()                                          ? kInterpretedOnHost
        : cuda::pageable_memory_access(job.device.index.value_or(0)) ? kPageableMemoryGpu
                                                                       : "";
    if (std::string reach = device_reach_reason(analysis, host_reach); !reach.empty()) return reach;
    return every_candidate_placed_apart() ? "every candidate is placed apart (KBENCH_NATIVE_ISOLATION=all)" : "";
  } catch (const InputError&) {
    return "";  // unreadable: the import reports it, and nothing of the candidate runs
  } catch (const std::exception& e) {
    return std::string("the static analysis failed: ") + e.what();
  }
}

nlohmann::json evaluate_with_reference_file(const Job& job, const UnitPlacement& placement) {
  const std::string bytes = read_verified(placement.reference_in, placement.reference_sha256);
  Commitment commitment;
  nlohmann::json message = worker_message(evaluate_against_reference(job, bytes, &commitment));
  if (!placement.commit_out.empty()) {
    const std::string encoded = encode_commitment(commitment);
    const GpuLockScope cpu_work(GpuLock::Mode::none);  // the outputs are on the host now
    message["commitment"] = write_document(placement.commit_out, encoded);
  }
  return message;
}

// The job's units where the placement puts them: both here, or (native code) the reference
// unit only, delivered at once, or the candidate unit against a reference file.
nlohmann::json evaluate_placed(const Job& job, const UnitPlacement& placement) {
  if (!placement.native_reference_out.empty() && placement.reference_in.empty() &&
      IntegrityMonitor::enabled_for(job, "native_isolation"))
    if (const std::string native = native_code_of(job); !native.empty()) {
      nlohmann::json reference = write_reference_work(job, placement.native_reference_out, /*defer_baselines=*/true,
                                                      placement.short_baselines);
      reference["placement"] = {{"native_code", native}};
      deliver(reference);
    }
  return placement.reference_in.empty() ? worker_message(evaluate_job(job, placement.short_baselines))
                                        : evaluate_with_reference_file(job, placement);
}

}  // namespace

void worker_evaluate(const std::filesystem::path& job_file, int result_fd, int key_fd,
                     const UnitPlacement& placement) {
  bind_channel(result_fd, placement.witness_fd);
  Job job;
  try {
    job = job_from_json(nlohmann::json::parse(std::ifstream(job_file)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench worker: unreadable job %s: %s\n", job_file.c_str(), e.what());
    _exit(3);
  }
  JobResult result;
  result.job = job;
  const auto started = std::chrono::steady_clock::now();
  std::string startup_error;
  // Decided by the source alone (source_verdict.hpp): no torch, no problem, no reference work,
  // and for a native candidate no second and third process. A pre-started worker decides it
  // before its hold, so its release only delivers.
  std::optional<JobResult> decided;
  double source_checks_s = 0;
  try {
    start_python();
    if (evaluates_candidate(placement)) {
      const auto checking = std::chrono::steady_clock::now();
      PhaseClock::instance().enter("source_checks");
      decided = source_verdict(job);
      PhaseClock::instance().finish();
      source_checks_s = seconds_since(checking);
    }
    if (!decided && placement.source_verdict_only) {
      read_key(key_fd);
      deliver({{"source_undecided", true}});
    }
    if (!decided) {
      import_torch_and_triton();
      install_gpu_lock_hooks(job.device);
      // Only where the kernel-share check will profile in this process (candidate_unit.cpp).
      if (job.device.is_cuda() && job.settings.require_custom_kernel && !placement.reference_baselines &&
          IntegrityMonitor::enabled_for(job, "custom_kernel_share"))
        warm_up_kernel_profiler(job.device.index.value_or(0));
    }
  } catch (const std::exception& e) {
    startup_error = e.what();
  }
  const double startup_s = seconds_since(started) - source_checks_s;
  // A pre-started worker waits here until the controller releases it by sending the key; no
  // candidate code has run yet (docs/architecture.md, pre-started workers).
  const auto holding = std::chrono::steady_clock::now();
  read_key(key_fd);
  const double held_s = seconds_since(holding);
  const auto evaluation_started = std::chrono::steady_clock::now();
  nlohmann::json message;
  try {
    if (!startup_error.empty()) throw std::runtime_error(startup_error);
    if (!placement.reference_out.empty())
      deliver(write_reference_work(job, placement.reference_out, false, placement.short_baselines));
    if (decided)
      message = worker_message(*decided);
    else
      message = placement.reference_baselines ? worker_message(measure_reference_baselines(job))
                                              : evaluate_placed(job, placement);
  } catch (const std::exception& e) {
    // Reached only for faults outside the candidate's reach (environment, kbench bugs).
    result.status = Status::problem_error;
    result.message = std::string("worker error: ") + e.what();
    message = worker_message(result);
  }
  auto& diagnostics = message["diagnostics"];
  if (auto builds = extension_build_report(); !builds.is_null()) diagnostics["extension_build"] = builds;
  PhaseClock::instance().finish();
  diagnostics["worker_timeline"] = {{"startup_s", startup_s},
                                    {"held_s", held_s},
                                    {"evaluate_s", seconds_since(evaluation_started)},
                                    {"phases_s", PhaseClock::instance().json()},
                                    {"steps_s", PhaseClock::instance().steps_json()}};
  deliver(message);
}

namespace {

// The judge's device memory (docs/memory.md#the-judge): the job's grant, as every process of
// the job has it (the allocator capped at it), and its need from the reference worker's
// footprint; a need the grant cannot hold stops it before anything is built (planned out of
// memory: the controller runs the job again with the whole device).
JudgeMemory admit_judge(DeviceMemory& memory, const ReferenceWork& work) {
  JudgeMemory judge;
  judge.reference_calls = true;
  if (!work.memory_plan.contains("footprint")) return judge;
  const MemoryPlan plan = plan_judge_memory(memory_footprint_from_json(work.memory_plan.at("footprint")),
                                            memory.planning_budget());
  judge.planned_bytes = plan.planned_bytes;
  if (!plan.fits) throw memory.does_not_fit(plan, "judge");
  return judge;
}

// The judge's source of the reference's outputs for a seed (fresh values, witness calls): each
// call takes the lock's turn (SlicedSharedHold), and a failure, out of memory included, is told
// against the job's memory grant.
FreshExpected judge_reference(FreshExpected outputs, DeviceMemory* memory, SlicedSharedHold& hold) {
  return [outputs = std::move(outputs), memory, &hold](long long seed) {
    hold.before_step();
    try {
      // Left on the device: the judge copies only the opened elements (output_opening.hpp).
      return outputs(seed);
    } catch (const Verdict& verdict) {
      throw memory->explain(verdict, "judge");
    } catch (const std::exception& e) {  // c10::OutOfMemoryError, outside any Python call
      if (!out_of_memory_kind(e.what())) throw;
      throw memory->explain(Verdict{Status::problem_error, e.what()}, "judge");
    }
  };
}

}  // namespace

void worker_judge(const std::filesystem::path& job_file, int result_fd, int key_fd,
                  const UnitPlacement& placement) {
  bind_channel(result_fd);
  read_key(key_fd);
  JobResult result;
  std::unique_ptr<ProblemContext> context;
  DeviceMemory* memory = nullptr;
  std::optional<JudgeMemory> judge_memory;
  // Where the judge's time goes (the cost of #20's judge: its start against its checks).
  const auto began = std::chrono::steady_clock::now();
  double setup_s = 0;
  PhaseClock::instance().enter("judge_setup");
  try {
    result.job = job_from_json(nlohmann::json::parse(std::ifstream(job_file)));
    // The interpreter (Trial holds Python handles); torch and the problem only where the calls
    // had fresh values or a timing witness ran, whose expected outputs are computed here.
    start_python();
    // Its CPU work is the harness's own (decoding, hashing, comparisons on host copies), never
    // timed: one intra-op thread, since on a CUDA host every job's judge, reference and candidate
    // workers share the cores and OpenMP pools of all cores each slow each other down. A CPU
    // job's fresh-valued reference calls keep torch's threads.
    if (result.job.device.is_cuda()) at::set_num_threads(1);
    // Its setup in steps (judged.steps_s): at full size the files are GBs, read and hashed whole.
    ReferenceWork work = [&] {
      const PhaseStep step("read_reference_work");
      return decode_reference_work(read_verified(placement.reference_in, placement.reference_sha256));
    }();
    const Commitment commitment = [&] {
      const PhaseStep step("read_commitment");
      return decode_commitment(read_verified(placement.commit_in, placement.commit_sha256));
    }();
    JobResult provisional;
    provisional.job = result.job;
    apply_worker_message(nlohmann::json::parse(std::ifstream(placement.provisional)), provisional);
    std::optional<std::vector<CallReveal>> reveals;
    if (!placement.reveals.empty()) {
      reveals = decode_call_reveals(read_file(placement.reveals));
    }
    std::unique_ptr<FreshInputs> fresh;
    FreshExpected fresh_expected, witness_expected;
    py::object reference_model;
    const bool reference_calls = work.fresh_calls || !work.witness_seeds.empty();
    if (reference_calls && provisional.status == Status::ok) {
      // The reference model and the layout as the reference worker built them (the digests
      // checked), then the reference once per committed call and once per witness call.
      {
        const PhaseStep step("problem_context");
        context = std::make_unique<ProblemContext>(result.job);
      }
      if (result.job.device.is_cuda()) {
        install_gpu_lock_drain(result.job.device);  // a yield leaves none of its kernels running
        const PhaseStep step("gpu_lock");
        GpuLock::instance().hold(GpuLock::Mode::shared);
      }
      {
        const PhaseStep step("device_memory");
        memory = &context->memory();  // under the GPU lock: it makes the CUDA context
        judge_memory = admit_judge(*memory, work);
      }
      Trial& first = work.trials.front();
      {
        const PhaseStep step("rebuild");
        context->rebuild(first, nullptr);
      }
      if (work.fresh_calls) fresh = std::make_unique<FreshInputs>(*context->builder, first.model, first.inputs);
      reference_model = first.model;
    }
    setup_s = seconds_since(began);
    // The trials' full comparisons, on host copies, come first: CPU work without the lock.
    const GpuLockScope cpu_work(GpuLock::Mode::none);
    // The reference calls (one per committed call, 25 and more) and the comparisons of their
    // opened elements, gathered on the device, keep the lock across calls; let go to a waiting
    // timer once a slice has passed (gpu_lock.hpp: taken per call, each call queued behind every
    // timer). Declared after cpu_work, so let go before it restores the lock for the frame.
    SlicedSharedHold reference_hold(std::chrono::milliseconds(250));
    if (fresh)
      fresh_expected = judge_reference([&fresh](long long seed) { return fresh->expected_outputs(seed); }, memory,
                                       reference_hold);
    // The witness's inputs built as the candidate built them (worker/witness_groups.hpp).
    if (reference_model)
      witness_expected = judge_reference(
          [&context, &reference_model](long long seed) {
            return reference_outputs_on(reference_model, py::tuple(context->builder->build_inputs(int(seed))),
                                        fmt::format("the timing witness's inputs (seed {})", seed));
          },
          memory, reference_hold);
    result = judge_commitment(result.job, work, commitment, std::move(provisional), placement.witness_sha256,
                              reveals ? &*reveals : nullptr, fresh_expected, witness_expected);
    // Python, the verified inputs and, for fresh values, torch, the problem and its rebuild;
    // then the judgement itself (its reference calls are in fresh_values.reference_s).
    result.diagnostics["judged"]["setup_s"] = setup_s;
    result.diagnostics["judged"]["judge_s"] = seconds_since(began) - setup_s;
    PhaseClock::instance().finish();
    result.diagnostics["judged"]["phases_s"] = PhaseClock::instance().json();
    result.diagnostics["judged"]["steps_s"] = PhaseClock::instance().steps_json();
  } catch (const Verdict& failed) {  // the problem, rebuilt here for fresh values, failed
    const Verdict verdict = memory ? memory->explain(failed, "judge") : failed;
    result.status = verdict.status;
    result.message = "judge: " + verdict.message;
    result.diagnostics.update(verdict.diagnostics);
  } catch (const std::exception& e) {
    result.status = Status::problem_error;
    result.message = std::string("judge error: ") + e.what();
  }
  // Its own peaks beside the candidate worker's (the controller adds its host peak).
  if (judge_memory) {
    const MemoryUsage mine = memory->usage();
    judge_memory->gpu_peak_allocated_bytes = mine.gpu_peak_allocated_bytes;
    judge_memory->gpu_peak_reserved_bytes = mine.gpu_peak_reserved_bytes;
    if (!result.memory) result.memory = MemoryUsage{};
    result.memory->judge = judge_memory;
  }
  deliver(worker_message(result));
}

void worker_validate(const std::filesystem::path& job_file, bool inductor, int result_fd, int key_fd) {
  bind_channel(result_fd);
  read_key(key_fd);
  nlohmann::json message;
  try {
    const Job job = job_from_json(nlohmann::json::parse(std::ifstream(job_file)));
    start_python_with_imports();
    install_gpu_lock_hooks(job.device);
    // GPU work, as a run's shared phases: no `run` worker times on this GPU meanwhile.
    GpuLock::instance().hold(GpuLock::Mode::shared);
    message = to_json(validate_problem(job, inductor));
  } catch (const std::exception& e) {
    message = {{"error", e.what()}};
  }
  deliver(message);
}

void worker_probe(const Device& device, int result_fd, int key_fd) {
  bind_channel(result_fd);
  read_key(key_fd);
  nlohmann::json message;
  try {
    start_python();
    message = describe_environment(device);
  } catch (const std::exception& e) {
    message = {{"error", e.what()}};
  }
  deliver(message);
}

}  // namespace kbench
