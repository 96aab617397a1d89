// `kbench serve SUITE`: the HTTP reward service over one Evaluator (docs/serve.md).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "number_option.hpp"
#ifdef KBENCH_WITH_SERVE
#include "serve/serve_loop.hpp"
#endif

namespace kbench::cli {

#ifdef KBENCH_WITH_SERVE
void add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  auto code = std::make_shared<int>(0);
  auto* cmd = app.add_subcommand("serve", "Serve evaluations over HTTP: the reward service for RL (docs/serve.md)");
  auto& evaluator = options->evaluator;
  auto& http = options->http;
  cmd->add_option("suite", evaluator.suite_file, "Suite YAML whose problems requests name (docs/suite-format.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--host", http.host, "Address to listen on; anything but the loopback needs --token-file")
      ->default_val("127.0.0.1")
      ->group("HTTP");
  cmd->add_option("--port", http.port, "Port (0: a free one, printed at start)")
      ->default_val(8000)
      ->check(CLI::Range(0, 65535))
      ->group("HTTP");
  cmd->add_option("--token-file", options->token_file,
                  "File holding the bearer token every request but /health must carry")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group("HTTP");
  cmd->add_option("--request-timeout", http.request_timeout_s,
                  "Seconds a waiting request (wait=1) blocks before it gets 202 and polls (default 600)")
      ->check(documented_range("--request-timeout"))
      ->group("HTTP");
  cmd->add_option("--max-queue", evaluator.max_queued,
                  "Accepted requests waiting for a worker beyond which new ones get 429 (default 256)")
      ->check(CLI::Range(1, 1000000))
      ->group("HTTP");
  cmd->add_option("--results", options->results_file,
                  "Append every finished evaluation to this JSON-lines file (fsynced; never truncated)")
      ->type_name("FILE")
      ->group("HTTP");
  cmd->add_option("--keep-results", evaluator.keep_finished,
                  "Finished results kept in memory for GET /results/ID, least recently finished or read evicted "
                  "first; an evicted id answers 410 (default 4096; docs/serve.md#retention)")
      ->check(CLI::Range(1, 100000000))
      ->group("HTTP");
  cmd->add_option("--keep-results-s", evaluator.keep_finished_s,
                  "Also evict a finished result not read for this many seconds (default: no age bound)")
      ->check(documented_range("--keep-results-s"))
      ->group("HTTP");
  cmd->add_option("--device", evaluator.device, "auto (GPU if present), cpu, cuda or cuda:N")
      ->default_val("auto")
      ->group("Execution");
  cmd->add_option("--checks", evaluator.checks, "Integrity checks: strict (default), standard or minimal")
      ->group("Execution");
  cmd->add_option("--timing-preset", evaluator.timing_preset,
                  "Timing defaults: full (the suite's default) or rl (+-2% median CIs, short; docs/timing.md#presets)")
      ->type_name("full|rl")
      ->transform(CLI::IsMember({"full", "rl"}))
      ->group("Execution");
  cmd->add_option("--workers", evaluator.workers,
                  "Worker slots (default as kbench run: GPUs x --workers-per-gpu, 1 on the CPU)")
      ->check(CLI::Range(1, 256))
      ->group("Execution");
  cmd->add_option("--workers-per-gpu", evaluator.workers_per_gpu, "Workers sharing one GPU (default 8)")
      ->check(CLI::Range(1, 16))
      ->group("Execution");
  cmd->add_option("--prestart", evaluator.prestart,
                  "Start each slot's next workers while the current one runs (default: on with CUDA, off on the CPU)")
      ->type_name("on|off")
      ->transform(CLI::IsMember({"on", "off"}))
      ->group("Execution");
  cmd->add_option("--keep-reference", evaluator.keep_reference,
                  "Keep each problem's baselines across requests, drift-checked per request (default auto: on a GPU; "
                  "docs/timing.md#kept-reference-work)")
      ->type_name("auto|on|off")
      ->transform(CLI::IsMember({"auto", "on", "off"}))
      ->group("Execution");
  cmd->add_option_function<std::string>(
         "--fill-reference", [options](const std::string& value) { options->evaluator.fill_reference = value == "on"; },
         "Measure every problem's kept reference at start, in slots no request waits for, so first requests do "
         "not pay it (default on; nothing to fill where --keep-reference is off; docs/serve.md#reference-fill)")
      ->type_name("on|off")
      ->transform(CLI::IsMember({"on", "off"}))
      ->group("Execution");
  cmd->add_option("--keep-reference-drift", evaluator.keep_reference_drift,
                  "Bound of the kept baselines' drift check (default 0.01)")
      ->check(documented_range("--keep-reference-drift"))
      ->group("Execution");
  cmd->add_option("--device-memory-gb", evaluator.device_memory_gb,
                  "GiB per device the memory ledger shares out among the workers (default 95% of each GPU's; "
                  "docs/memory.md#admission)")
      ->check(documented_range("--device-memory-gb"))
      ->group("Execution");
  cmd->add_option("--timeout", evaluator.timeout_s, "Seconds per evaluation before its worker is killed (overrides the suite)")
      ->check(documented_range("--timeout"))
      ->group("Execution");
  cmd->add_option("--work-dir", evaluator.work_dir, "Folder for candidate files and worker logs (default: a temp dir, removed)")
      ->group("Execution");
  cmd->callback([options, code] {
    options->log = [](const std::string& line) { std::fprintf(stderr, "kbench serve: %s\n", line.c_str()); };
    // The Evaluator's lines name themselves ("kbench: ...").
    options->evaluator.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    // The one line a supervisor or test reads to learn the port (--port 0).
    options->on_listening = [](const std::string& host, int port) {
      std::printf("listening on http://%s:%d\n", host.find(':') == std::string::npos ? host.c_str()
                                                   : fmt::format("[{}]", host).c_str(), port);
      std::fflush(stdout);
    };
    *code = run_serve(*options);
    if (*code != 0) throw Error(static_cast<ExitCode>(*code), "killed by a second signal; running evaluations were not answered");
  });
}
#else
void add_serve_command(CLI::App& app) {
  // The same description as the real command: docs/cli.md's --help block holds on both builds.
  auto* cmd = app.add_subcommand("serve", "Serve evaluations over HTTP: the reward service for RL (docs/serve.md)");
  cmd->allow_extras();
  cmd->callback([] {
    throw EnvironmentError("this kbench was built without cpp-httplib, so `kbench serve` is left out: "
                           "apt-get install libcpp-httplib-dev and rebuild (docs/serve.md#building)");
  });
}
#endif

}  // namespace kbench::cli
