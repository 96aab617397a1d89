// `kbench compare BASE.json NEW.json`: what changed between two results files, with an exit
// code for CI (docs/compare.md).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "number_option.hpp"
#include "report/compare_render.hpp"
#include "report/output_paths.hpp"
#include "report/results_json.hpp"
#include "report/results_reader.hpp"
#include "table_stream.hpp"

namespace kbench::cli {
namespace {

// Writes `text` to FILE, or to stdout for "-".
void write_output(const std::string& target, const std::string& text) {
  if (target == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(target, std::ios::trunc);
  out << text;
  if (!out) throw InputError(fmt::format("{}: cannot write here", target));
}

struct CompareArgs {
  std::string base_file, new_file;
  std::optional<double> fail_percent;
  CompareOptions options;
  GateOptions gate;
  std::string md, json, junit;
};

}  // namespace

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two results files: per-candidate time changes with 95% CIs, newly "
                 "failing/passing, added/removed, summary deltas");
  cmd->add_option("baseline_results", args->base_file, "Results JSON of the reference run")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("new_results", args->new_file, "Results JSON of the run to judge")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--fail-on-regression", args->fail_percent,
                  "Exit 1 when a candidate is SLOWER by >= PCT percent or newly failing")
      ->check(documented_range("--fail-on-regression"))
      ->type_name("PCT");
  cmd->add_flag("--ignore-env", args->options.ignore_env,
                "Compare even when environment.device_name or environment.torch differ");
  cmd->add_option("--baseline", args->options.baseline,
                  "Speedup column vs eager or inductor (default: inductor when timed)")
      ->check(CLI::IsMember({"eager", "inductor"}));
  cmd->add_flag("--allow-incomplete", args->gate.allow_incomplete,
                "Gate (--fail-on-regression) even when a file is an interrupted run");
  cmd->add_flag("--allow-suite-mismatch", args->gate.allow_suite_mismatch,
                "Gate even when the files are runs of differently named suites");
  cmd->add_flag("--allow-plan-change", args->gate.allow_plan_change,
                "Gate even when evaluations are missing from NEW or new in it");
  cmd->add_option("--md", args->md, "Write Markdown (e.g. for $GITHUB_STEP_SUMMARY) to FILE or -")
      ->type_name("FILE|-")
      ->group("Output");
  cmd->add_option("--json", args->json, "Write the comparison as JSON to FILE or -")
      ->type_name("FILE|-")
      ->group("Output");
  cmd->add_option("--junit", args->junit, "Write JUnit XML, one testcase per candidate, to FILE or -")
      ->type_name("FILE|-")
      ->group("Output");
  cmd->callback([args] {
    // A bad output path fails before any reading or printing (exit 2).
    std::vector<NamedPath> outputs;
    for (const auto& [flag, target] : {std::pair{"--md", &args->md}, std::pair{"--json", &args->json},
                                       std::pair{"--junit", &args->junit}})
      if (!target->empty()) outputs.push_back({flag, *target});
    check_output_paths(outputs, {{"the baseline results", args->base_file},
                                 {"the new results", args->new_file}});
    for (const auto& o : outputs)
      if (o.path != "-") check_writable(o.path);
    const RunReport base = read_results_file(args->base_file);
    const RunReport next = read_results_file(args->new_file);
    const Comparison c = compare_reports(base, args->base_file, next, args->new_file, args->options);
    const auto fail = args->fail_percent;
    // A gate judges every evaluation of BASE, or refuses before printing anything.
    if (fail) check_gate_inputs(base, args->base_file, next, args->new_file, c, args->gate);
    std::fputs((compare_table(c, fail) + "\n" + compare_summary_line(c) + "\n").c_str(),
               table_stream({args->md, args->json, args->junit}));
    if (!args->md.empty()) write_output(args->md, compare_markdown(c, fail));
    if (!args->json.empty()) write_output(args->json, compare_json(c, fail).dump(2) + "\n");
    if (!args->junit.empty()) write_output(args->junit, compare_junit(c, fail));
    if (fail && has_regression(c, *fail))
      throw Error(kExitRegression,
                  fmt::format("regression: a candidate is SLOWER by >= {}% or newly failing", *fail));
  });
}

}  // namespace kbench::cli
