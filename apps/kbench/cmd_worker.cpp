// `kbench worker`: internal; the controller starts it (kbench-worker), one process per evaluation.
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "worker_commands.hpp"
#include "worker/worker_entry.hpp"

namespace kbench::cli {

void add_worker_command(CLI::App& app) {
  struct Args {
    std::string job_file, device = "cpu";
    bool probe = false;
    bool validate = false, no_inductor = false;
    int result_fd = -1;
    int key_fd = -1;
    UnitPlacement placement;
  };
  auto args = std::make_shared<Args>();
  auto* worker = app.add_subcommand("worker", worker_command("worker").description);
  worker->group("");  // hidden from --help
  worker->add_option("--job", args->job_file, "Job JSON written by the controller");
  worker->add_flag("--probe", args->probe, "Report the Python/torch/device environment");
  worker->add_option("--device", args->device, "Device for --probe");
  worker->add_flag("--validate", args->validate, "Check the --job's problem (kbench validate)");
  worker->add_flag("--no-inductor", args->no_inductor, "With --validate: skip the Inductor check");
  worker->add_option("--native-reference-out", args->placement.native_reference_out,
                     "If the candidate may run native code, run only the reference unit; write its work here");
  worker->add_option("--reference-out", args->placement.reference_out,
                     "Run only the reference unit; write its work here");
  worker->add_option("--reference-in", args->placement.reference_in,
                     "Run only the candidate unit against this reference work");
  worker->add_option("--reference-sha256", args->placement.reference_sha256,
                     "With --reference-in: the work's SHA-256 (hex)");
  worker->add_option("--commit-out", args->placement.commit_out,
                     "With blinded --reference-in: write the candidate's commitment here");
  worker->add_flag("--judge", args->placement.judge, "Judge --commit-in against the full --reference-in");
  worker->add_option("--commit-in", args->placement.commit_in, "With --judge: the candidate's commitment");
  worker->add_option("--commit-sha256", args->placement.commit_sha256, "With --judge: its SHA-256 (hex)");
  worker->add_option("--provisional", args->placement.provisional,
                     "With --judge: the candidate unit's message (JSON)");
  worker->add_option("--witness-sha256", args->placement.witness_sha256,
                     "With --judge: the digest announced when the timing witness's window closed");
  worker->add_option("--reveals", args->placement.reveals,
                     "With --judge: the controller's record of the seeds it revealed (JSON)");
  worker->add_option("--witness-fd", args->placement.witness_fd, "Pipe of the timing witness's seeds");
  worker->add_flag("--reference-baselines", args->placement.reference_baselines,
                   "Only the trusted measurement of the baselines, for kept reference work");
  worker->add_flag("--short-baselines", args->placement.short_baselines,
                   "The baselines' timings are kept: a drift sample of the first one only");
  worker->add_flag("--source-verdict", args->placement.source_verdict_only,
                   "Only the verdict the candidate's source decides alone (no torch)");
  worker->add_option("--result-fd", args->result_fd, "Private result pipe")->required();
  worker->add_option("--key-fd", args->key_fd, "Pipe holding the result frame's key")->required();
  worker->callback([args] {
    if (args->probe) {
      const auto device = parse_device(args->device);
      if (!device) throw InputError("worker --device '" + args->device + "': not cpu, cuda or cuda:N");
      worker_probe(*device, args->result_fd, args->key_fd);
    }
    if (args->validate)
      worker_validate(args->job_file, !args->no_inductor, args->result_fd, args->key_fd);
    if (args->placement.judge) worker_judge(args->job_file, args->result_fd, args->key_fd, args->placement);
    worker_evaluate(args->job_file, args->result_fd, args->key_fd, args->placement);
  });
}

}  // namespace kbench::cli
