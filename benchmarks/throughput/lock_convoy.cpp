// The GPU lock's convoy on the CPU (issue #14): worker processes contending through the real
// GpuLock (lib/worker/gpu_lock.cpp) on a lock file and its gate, as the workers of one GPU do.
// One worker has a long shared phase (an Inductor compile, a Triton autotune, a trial loop over
// a big problem); the others run short jobs (a short shared phase, then timing, exclusive).
// Each mode runs the same schedule:
//   before      today's main before the fix: the long phase holds shared throughout
//   yield       the long and short phases call yield_to_timer() between their steps
//   yield+none  as yield, and half of each step is CPU-only work at `none` (a Triton compile
//               under gpu_lock_hooks.cpp's wrapper), the lock taken again through the gate
// It prints per mode when the short workers were done (their slots free for more work), the
// makespan, the exclusive waits of the timing holders (sum, max, mean of the short jobs), and how many GPU steps overlapped another worker's timed interval
// (always 0, or the lock is broken: exit 1). --check also fails unless `yield` cuts the short
// jobs' mean timing wait below half of `before`'s.
//
//   build/bin/kbench-lock-convoy [--workers 4] [--jobs 3] [--long-s 3] [--short-s 0.2]
//       [--time-s 0.1] [--step-ms 20] [--json FILE] [--check]
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/gpu_lock_name.hpp"
#include "worker/gpu_lock.hpp"

namespace {

using kbench::GpuLock;
using Mode = GpuLock::Mode;

struct Options {
  int workers = 4;
  int jobs = 3;
  double long_s = 3.0;
  double short_s = 0.2;
  double time_s = 0.1;
  double step_ms = 20;
  std::string json;
  bool check = false;
};

double now_s() {  // CLOCK_MONOTONIC: one clock for every process of the host
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void sleep_s(double s) {
  if (s <= 0) return;
  timespec t{time_t(s), long((s - double(time_t(s))) * 1e9)};
  while (nanosleep(&t, &t) != 0) {
  }
}

// What a worker process reports, one line each: "gpu W START END" for a step of GPU work (held
// shared), "timed W START END WAIT" for a timed interval (held exclusive) and its wait.
struct Interval {
  std::string kind;
  int worker = 0;
  int job = 0;
  double start = 0, end = 0, wait = 0;
};

void run_worker(const Options& o, const std::string& mode, int worker, const std::filesystem::path& file, int out) {
  GpuLock lock(file);
  std::string lines;
  const bool yields = mode != "before";
  const bool cpu_half = mode == "yield+none";
  sleep_s(0.05 * worker);  // the long worker (0) is in its shared phase first
  for (int job = 0; job < o.jobs; ++job) {
    const double phase_s = worker == 0 ? o.long_s : o.short_s;
    const int steps = std::max(1, int(phase_s * 1000 / o.step_ms));
    const double step_s = phase_s / steps;
    lock.hold(Mode::shared);
    for (int s = 0; s < steps; ++s) {
      if (yields) lock.yield_to_timer();
      if (cpu_half) {
        {
          lock.hold(Mode::none);  // the compile: CPU only
          sleep_s(step_s / 2);
        }
        lock.hold(Mode::shared);  // its first launch: through the gate
      }
      const double start = now_s();
      sleep_s(cpu_half ? step_s / 2 : step_s);
      lines += "gpu " + std::to_string(worker) + " " + std::to_string(job) + " " + std::to_string(start) + " " +
               std::to_string(now_s()) + " 0\n";
    }
    const double waited = lock.wait_s();
    lock.hold(Mode::exclusive);
    const double wait = lock.wait_s() - waited;
    const double start = now_s();
    sleep_s(o.time_s);
    lines += "timed " + std::to_string(worker) + " " + std::to_string(job) + " " + std::to_string(start) + " " +
             std::to_string(now_s()) + " " + std::to_string(wait) + "\n";
    lock.hold(Mode::none);
  }
  for (std::size_t done = 0; done < lines.size();) {
    const ssize_t n = write(out, lines.data() + done, lines.size() - done);
    if (n <= 0) _exit(2);
    done += std::size_t(n);
  }
  _exit(0);
}

nlohmann::json run_mode(const Options& o, const std::string& mode, const std::filesystem::path& dir) {
  const auto file = dir / ("kbench-gpu-" + std::to_string(getpid()) + ".lock");
  std::ofstream(file).close();
  std::ofstream(kbench::gpu_lock_gate_file(file)).close();  // as the controller does
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const double started = now_s();
  std::vector<pid_t> pids;
  for (int w = 0; w < o.workers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      close(pipe_fds[0]);
      run_worker(o, mode, w, file, pipe_fds[1]);
    }
    pids.push_back(pid);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, std::size_t(n));
  close(pipe_fds[0]);
  bool failed = false;
  for (const pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed = failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  const double makespan = now_s() - started;
  std::filesystem::remove(file);
  std::filesystem::remove(kbench::gpu_lock_gate_file(file));
  if (failed) throw std::runtime_error("a worker process failed");
  std::vector<Interval> intervals;
  std::istringstream in(text);
  for (Interval i; in >> i.kind >> i.worker >> i.job >> i.start >> i.end >> i.wait;) intervals.push_back(i);
  // The guarantee: no GPU step of one worker inside another worker's timed interval.
  int overlaps = 0;
  for (const auto& t : intervals)
    if (t.kind == "timed")
      for (const auto& g : intervals)
        if (g.kind == "gpu" && g.worker != t.worker && g.start < t.end && t.start < g.end) ++overlaps;
  double wait_sum = 0, wait_max = 0, short_sum = 0, long_wait = 0, short_done = 0;
  int short_count = 0;
  for (const auto& t : intervals) {
    if (t.kind != "timed") continue;
    wait_sum += t.wait;
    wait_max = std::max(wait_max, t.wait);
    if (t.worker == 0) {
      long_wait += t.wait;
    } else {
      short_sum += t.wait;
      ++short_count;
      short_done = std::max(short_done, t.end - started);  // when their slots could take more work
    }
  }
  return {{"mode", mode},
          {"makespan_s", makespan},
          {"short_workers_done_s", short_done},
          {"timing_wait_sum_s", wait_sum},
          {"timing_wait_max_s", wait_max},
          {"short_jobs_timing_wait_mean_s", short_count ? short_sum / short_count : 0.0},
          {"long_worker_timing_wait_s", long_wait},
          {"timed_intervals", std::count_if(intervals.begin(), intervals.end(), [](const Interval& i) { return i.kind == "timed"; })},
          {"overlaps", overlaps}};
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kbench-lock-convoy: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--workers") o.workers = std::stoi(value());
    else if (a == "--jobs") o.jobs = std::stoi(value());
    else if (a == "--long-s") o.long_s = std::stod(value());
    else if (a == "--short-s") o.short_s = std::stod(value());
    else if (a == "--time-s") o.time_s = std::stod(value());
    else if (a == "--step-ms") o.step_ms = std::stod(value());
    else if (a == "--json") o.json = value();
    else if (a == "--check") o.check = true;
    else {
      std::fprintf(stderr, "kbench-lock-convoy: unknown argument %s (see the file's header)\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.workers < 2 || o.jobs < 1 || o.step_ms <= 0) {
    std::fprintf(stderr, "kbench-lock-convoy: needs --workers >= 2, --jobs >= 1, --step-ms > 0\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const auto dir = std::filesystem::temp_directory_path();
  std::printf("%d workers on one lock; worker 0: shared phases of %.2f s, the others %.2f s; timing %.2f s; "
              "%d jobs each; steps of %.0f ms\n",
              o.workers, o.long_s, o.short_s, o.time_s, o.jobs, o.step_ms);
  nlohmann::json report = {{"options", {{"workers", o.workers}, {"jobs", o.jobs}, {"long_s", o.long_s},
                                        {"short_s", o.short_s}, {"time_s", o.time_s}, {"step_ms", o.step_ms}}},
                           {"modes", nlohmann::json::array()}};
  int overlaps = 0;
  for (const char* mode : {"before", "yield", "yield+none"}) {
    const auto r = run_mode(o, mode, dir);
    overlaps += r["overlaps"].get<int>();
    std::printf("%-11s short workers done %6.2f s (all %6.2f s); timing waits: sum %6.2f s, max %5.2f s, "
                "short jobs' mean %5.2f s; overlaps %d\n",
                mode, r["short_workers_done_s"].get<double>(), r["makespan_s"].get<double>(),
                r["timing_wait_sum_s"].get<double>(),
                r["timing_wait_max_s"].get<double>(), r["short_jobs_timing_wait_mean_s"].get<double>(),
                r["overlaps"].get<int>());
    report["modes"].push_back(r);
  }
  if (!o.json.empty()) std::ofstream(o.json) << report.dump(2) << "\n";
  if (overlaps > 0) {
    std::printf("FAIL: GPU work overlapped another worker's timed interval\n");
    return 1;
  }
  const double before = report["modes"][0]["short_jobs_timing_wait_mean_s"].get<double>();
  const double after = report["modes"][1]["short_jobs_timing_wait_mean_s"].get<double>();
  if (o.check && !(after < 0.5 * before)) {
    std::printf("FAIL: the yield did not cut the short jobs' timing wait (%.3f s -> %.3f s)\n", before, after);
    return 1;
  }
  return 0;
}
