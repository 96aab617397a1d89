// `kbench run SUITE.yaml`: evaluate every problem x candidate of a suite.
#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include "commands.hpp"
#include "device/device_resolution.hpp"
#include "generate_options.hpp"
#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "exec/wall_deadline.hpp"
#include "number_option.hpp"
#include "report/generation_totals.hpp"
#include "report/progress_line.hpp"
#include "report/terminal_table.hpp"
#include "report/turn_metrics.hpp"
#include "run/suite_listing.hpp"
#include "run/suite_runner.hpp"
#include "table_stream.hpp"

namespace kbench::cli {
namespace {

// stderr with a live progress line at the bottom on a terminal: log lines are printed above it
// and the line is redrawn in place. Not a terminal: plain lines only (CI logs).
class ProgressConsole {
 public:
  explicit ProgressConsole(bool live) : live_(live), started_(std::chrono::steady_clock::now()) {}
  [[nodiscard]] bool live() const { return live_; }
  void print(const std::string& text) {
    std::lock_guard lock(mutex_);
    std::fprintf(stderr, "%s%s\n%s", live_ ? "\r\033[K" : "", text.c_str(), line_.c_str());
    std::fflush(stderr);
  }
  void redraw(const ProgressTracker& tracker) {
    std::lock_guard lock(mutex_);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    line_ = tracker.line(elapsed, terminal_width() - 1);
    std::fprintf(stderr, "\r\033[K%s", line_.c_str());
    std::fflush(stderr);
  }
  void clear() {
    std::lock_guard lock(mutex_);
    if (live_ && !line_.empty()) std::fputs("\r\033[K", stderr);
    line_.clear();
  }

 private:
  static std::size_t terminal_width() {
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 20) return size.ws_col;
    return 100;
  }
  bool live_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::string line_;
};

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<SuiteRunOptions>();
  auto quiet = std::make_shared<bool>(false);
  auto* run = app.add_subcommand("run", "Evaluate every problem x candidate of a suite YAML");
  run->add_option("suite", options->suite_file, "Suite YAML file (see docs/suite-format.md)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--json,-o,--output", options->results_file,
                  "Write results JSON here (rewritten after every job; - for stdout at the end)")
      ->type_name("FILE|-")
      ->group("Output");
  // More report formats (docs/reports.md); each may be given once.
  for (const auto& [flag, format, what] :
       {std::tuple{"--md", "md", "Markdown report (fits a CI job summary)"},
        std::tuple{"--html", "html", "Self-contained HTML report with charts"},
        std::tuple{"--junit", "junit", "JUnit XML, one test case per problem x candidate"},
        std::tuple{"--csv", "csv", "CSV, one row per problem x candidate"}}) {
    run->add_option_function<std::string>(
           flag, [options, format = std::string(format)](const std::string& path) {
             options->outputs.push_back({format, path});
           },
           fmt::format("{}; rewritten after every job, - for stdout at the end", what))
        ->type_name("FILE|-")
        ->group("Output");
  }
  run->add_flag("-q,--quiet", *quiet, "Print only the final table and summary")->group("Output");
  run->add_option("--device", options->device, "auto (GPU if present), cpu, cuda or cuda:N")
      ->default_val("auto")
      ->group("Execution");
  run->add_option("--timeout", options->timeout_s,
                  "Seconds per evaluation before its worker is killed (overrides the suite)")
      ->check(documented_range("--timeout"))
      ->group("Execution");
  // One value per occurrence (repeat the flag, or use commas), so a following suite path is
  // never taken as one more pattern.
  run->add_option("--candidates", options->candidates,
                  "Candidate file pattern for every problem, replacing the suite's ({id} expands); "
                  "repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Selection");
  run->add_option("--baselines", options->baselines, "Baselines to time: eager, inductor (comma-separated)")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Selection");
  run->add_option("--checks", options->checks,
                  "Integrity checks: strict (default), standard or minimal (docs/integrity.md)")
      ->group("Execution");
  run->add_option("--timing-mode", options->timing_mode,
                  "cold (L2 flushed, default), hot, graph, or kernelbench (comparison protocol)")
      ->group("Timing");
  run->add_option("--timing-preset", options->timing_preset,
                  "Defaults of the timing keys the suite leaves unset: full (default; +-0.5% median CIs) "
                  "or rl (+-2%, at most 1 s per job on CUDA; docs/timing.md#presets)")
      ->type_name("full|rl")
      ->transform(CLI::IsMember({"full", "rl"}))
      ->group("Timing");
  run->add_option("--target-ci", options->target_ci,
                  "Stop when each median's 95% CI half-width is within this fraction (0.005)")
      ->check(documented_range("--target-ci"))
      ->group("Timing");
  run->add_option("--max-time", options->max_time_s, "Cap in seconds on one job's timing protocol")
      ->check(documented_range("--max-time"))
      ->group("Timing");
  auto shard = std::make_shared<std::string>();
  run->add_option("--shard", *shard,
                  "Run only shard i of N (0-based, 0 <= i < N; split by a hash of the problem id)")
      ->type_name("i/N")
      ->group("Selection");
  run->add_option("--work-dir", options->work_dir,
                  "Folder for per-job worker files and logs (default: a temp dir, removed)")
      ->group("Execution");
  run->add_flag("--keep-work-dir", options->keep_work_dir, "Keep worker logs after the run")
      ->group("Execution");
  run->add_option("-j,--jobs", options->jobs,
                  "Worker slots run side by side (default: one per visible GPU x --workers-per-gpu; "
                  "1 on the CPU, where concurrent jobs perturb each other's timing)")
      ->check(CLI::Range(1, 256))
      ->group("Execution");
  run->add_option("--workers-per-gpu", options->workers_per_gpu,
                  "Workers sharing one GPU (default 2): one times while the others start up and "
                  "import (a per-GPU lock)")
      ->check(CLI::Range(1, 16))
      ->group("Execution");
  run->add_option("--device-memory-gb", options->device_memory_gb,
                  "Memory shared out to the workers of each device (default: 95% of each GPU's; the "
                  "CPU unbounded); jobs are admitted by it (docs/memory.md)")
      ->check(documented_range("--device-memory-gb"))
      ->group("Execution");
  run->add_option("--prestart", options->prestart,
                  "Start each slot's next two workers (Python, torch, triton imports) while the current "
                  "job runs (default: on with CUDA; off on the CPU, where the imports would compete "
                  "with CPU timing)")
      ->type_name("on|off")
      ->transform(CLI::IsMember({"on", "off"}))
      ->group("Execution");
  run->add_option("--keep-reference", options->keep_reference,
                  "Keep each problem's baseline timings and Inductor artefacts across its jobs, measured once "
                  "by a trusted worker; every job re-times a short baseline sample to check for drift "
                  "(default auto: repeated problems on a GPU; docs/timing.md#kept-reference-work)")
      ->type_name("auto|on|off")
      ->transform(CLI::IsMember({"auto", "on", "off"}))
      ->group("Execution");
  run->add_option("--keep-reference-drift", options->keep_reference_drift,
                  "Kept baselines stand while the 95% CI of fresh/kept lies within 1 -/+ this (default 0.01); "
                  "beyond it the job runs the full protocol and the record is measured again")
      ->check(documented_range("--keep-reference-drift"))
      ->group("Execution");
  run->add_option("--journal", options->journal,
                  "Journal of finished jobs for --resume (default: RESULTS.journal.jsonl next to -o)")
      ->type_name("FILE")
      ->group("Execution");
  run->add_flag("--resume", options->resume,
                "Continue an interrupted run from its journal: skip finished jobs, run the rest")
      ->group("Execution");
  auto max_wall = std::make_shared<std::optional<double>>();
  auto max_wall_grace = std::make_shared<double>(60.0);
  run->add_option("--max-wall", *max_wall,
                  "Stop by this many seconds of run wall: no job starts after it, running jobs get "
                  "--max-wall-grace to finish; reports and journal written, exit 130, --resume continues")
      ->check(documented_range("--max-wall"))
      ->group("Execution");
  run->add_option("--max-wall-grace", *max_wall_grace,
                  "Seconds running jobs get after --max-wall before they are killed (default 60)")
      ->check(documented_range("--max-wall-grace"))
      ->group("Execution");
  // Selection for big suites (run/selection.hpp) and --dry-run: the planned jobs, nothing run.
  add_selection_options(run, options->selection);
  auto dry_run = std::make_shared<bool>(false);
  run->add_flag("--dry-run", *dry_run,
                "Print the planned jobs (after selection and --shard) and exit 0; runs and writes nothing")
      ->group("Selection");
  add_generate_options(*run, *options);
  run->callback([options, quiet, shard, dry_run, max_wall, max_wall_grace] {
    attach_generator(*options);
    if (!shard->empty()) options->shard = parse_shard(*shard);
    if (*dry_run) {
      const SuitePlan plan = plan_suite(*options);
      std::fputs(planned_jobs_text(plan.suite, plan.jobs, run_device(plan.devices)).c_str(), stdout);
      return;
    }
    auto console = std::make_shared<ProgressConsole>(!*quiet && isatty(STDERR_FILENO));
    if (!*quiet) options->log = [console](const std::string& line) { console->print(line); };
    if (console->live())
      options->progress = [console](const ProgressTracker& tracker) { console->redraw(tracker); };
    install_interrupt_handlers();
    std::optional<WallDeadline> deadline;
    if (*max_wall) deadline.emplace(**max_wall, *max_wall_grace);
    RunReport report;
    try {
      report = run_suite(*options);
    } catch (...) {
      console->clear();  // the error message starts on a clean line
      throw;
    }
    const bool cut_by_deadline = deadline && deadline->reached();
    deadline.reset();
    console->clear();
    std::vector<std::string> output_paths = {options->results_file ? options->results_file->string() : ""};
    for (const auto& o : options->outputs) output_paths.push_back(o.path);
    std::FILE* table = table_stream(output_paths);
    std::fputs(("\n" + terminal_table(report) + "\n" + summary_line(report) + "\n").c_str(), table);
    if (const auto memory = memory_summary_line(report); !memory.empty())
      std::fprintf(table, "%s\n", memory.c_str());
    if (report.generation)
      std::fprintf(table, "%s\n", generation_summary_line(generation_totals(report.results)).c_str());
    if (report.generation && report.generation->turns > 1)
      std::fputs(turn_metrics_text(turn_metrics(report.results)).c_str(), table);
    if (options->results_file && *options->results_file != "-")
      std::fprintf(table, "results: %s\n", options->results_file->c_str());
    if (report.results.size() < report.planned_jobs && cut_by_deadline) {
      throw Error(kExitInterrupted,
                  fmt::format("stopped by --max-wall {:g} s after {} of {} evaluations; what finished is reported "
                              "above; --resume with the same journal runs the rest",
                              **max_wall, report.results.size(), report.planned_jobs));
    }
    if (report.results.size() < report.planned_jobs) {
      throw Error(kExitInterrupted,
                  fmt::format("interrupted after {} of {} evaluations; what finished is reported above",
                              report.results.size(), report.planned_jobs));
    }
  });
}

}  // namespace kbench::cli
