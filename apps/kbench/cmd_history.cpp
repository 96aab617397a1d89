// `kbench history add RESULTS.json` and `kbench history trend`: a database of past runs, their
// trend, and the regression gate against a rolling baseline (docs/nightly.md).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>

#include "commands.hpp"
#include "number_option.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "history/history_entry.hpp"
#include "history/history_store.hpp"
#include "history/rolling_gate.hpp"
#include "history/trend_render.hpp"
#include "report/compare_render.hpp"
#include "report/results_json.hpp"
#include "report/results_reader.hpp"

namespace kbench::cli {
namespace {

struct HistoryArgs {
  std::string db;
  // add
  std::string results_file, label;
  // trend
  std::string suite, since, html, md;
  std::size_t window = 5;
  double fail_percent = 5;
};

void write_output(const std::string& target, const std::string& text) {
  if (target == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  write_file_atomically(target, [&](std::ostream& out) { out << text; });
}

std::string pick_suite(HistoryStore& store, const std::string& wanted) {
  const auto suites = store.suites();
  if (!wanted.empty()) {
    if (std::find(suites.begin(), suites.end(), wanted) == suites.end())
      throw InputError(fmt::format("--suite {}: no run of it in {} (it holds: {})", wanted, store.url(),
                                   suites.empty() ? "nothing yet" : join(suites, ", ")));
    return wanted;
  }
  if (suites.empty()) throw InputError(fmt::format("{}: no runs yet; add some with `kbench history add`", store.url()));
  if (suites.size() > 1)
    throw InputError(fmt::format("{} holds runs of several suites ({}); choose one with --suite", store.url(),
                                 join(suites, ", ")));
  return suites.front();
}

void run_add(const HistoryArgs& args) {
  const RunReport report = read_results_file(args.results_file);
  const HistoryEntry entry = history_entry(report, args.results_file, args.label, utc_now_iso8601());
  const auto store = open_history_store(args.db);
  store->add_run(entry.run, entry.results);
  std::printf("added run %s (suite %s, %zu results, started %s%s) to %s\n", entry.run.run_key.substr(0, 12).c_str(),
              entry.run.suite.c_str(), entry.results.size(), entry.run.started_at.c_str(),
              args.label.empty() ? "" : (", label " + args.label).c_str(), store->url().c_str());
}

void run_trend(const HistoryArgs& args) {
  static const std::regex date(R"(\d{4}-\d{2}-\d{2}([T ][0-9:.]+Z?)?)");
  if (!args.since.empty() && !std::regex_match(args.since, date))
    throw InputError(fmt::format("--since {}: give a date, YYYY-MM-DD (or YYYY-MM-DDTHH:MM:SSZ)", args.since));
  for (const auto* target : {&args.html, &args.md})
    if (!target->empty() && *target != "-") check_writable(*target);
  const auto store = open_history_store(args.db);
  RunFilter filter;
  filter.suite = pick_suite(*store, args.suite);
  if (!args.since.empty()) filter.since = args.since;
  const auto runs = store->runs(filter);
  if (runs.empty())
    throw InputError(fmt::format("{}: no run of suite {} since {}", store->url(), *filter.suite, args.since));
  TrendOptions options;
  options.window = args.window;
  options.shift_percent = args.fail_percent;
  const Trend trend = build_trend(*filter.suite, runs, store->results(filter), options);
  const GateResult gate = rolling_gate(*store, runs, args.window, args.fail_percent);

  // With a report on stdout, the terminal text goes to stderr so stdout stays clean.
  std::FILE* terminal = args.md == "-" || args.html == "-" ? stderr : stdout;
  std::fprintf(terminal, "suite %s: %zu runs (%s .. %s)\n", filter.suite->c_str(), runs.size(),
               runs.front().started_at.c_str(), runs.back().started_at.c_str());
  for (const auto& line : change_point_lines(trend)) std::fprintf(terminal, "change: %s\n", line.c_str());
  if (gate.comparison)
    std::fputs((compare_table(*gate.comparison, args.fail_percent) + "\n" + compare_summary_line(*gate.comparison) +
                "\n").c_str(), terminal);
  if (!gate.note.empty()) std::fprintf(terminal, "gate: %s\n", gate.note.c_str());
  if (!args.html.empty()) write_output(args.html, trend_html(trend, gate, args.fail_percent));
  if (!args.md.empty()) write_output(args.md, trend_markdown(trend, gate, args.fail_percent));
  if (gate.regression)
    throw Error(kExitRegression,
                fmt::format("regression: a candidate of the latest run ({}) is SLOWER by >= {}% or newly failing "
                            "than the rolling baseline of {} runs",
                            gate.latest_label, args.fail_percent, gate.baseline.size()));
}

}  // namespace

void add_history_command(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  auto* history = app.add_subcommand("history", "A database of past runs: add one, show the trend with "
                                                "change points, gate the latest against a rolling baseline");
  history->require_subcommand(1);
  const std::string db_help = "Database: an SQLite file (default $KBENCH_HISTORY_DB, else "
                              "kbench-history.sqlite) or postgresql://user@host:port/db";

  auto* add = history->add_subcommand("add", "Store one results JSON (run metadata and every result's "
                                             "figures); the same run twice is refused");
  add->add_option("results", args->results_file, "Results JSON of a complete run")
      ->required()
      ->check(CLI::ExistingFile);
  add->add_option("--db", args->db, db_help)->type_name("URL|FILE");
  add->add_option("--label", args->label, "What this run is, e.g. the commit it measured");
  add->callback([args] {
    if (args->db.empty()) args->db = default_history_url();
    run_add(*args);
  });

  auto* trend = history->add_subcommand(
      "trend", "Per-problem and suite metrics over time with change points; exit 1 when the latest run "
               "regresses against the rolling baseline of the K runs before it");
  trend->add_option("--db", args->db, db_help)->type_name("URL|FILE");
  trend->add_option("--suite", args->suite, "Suite name (needed when the database holds several)");
  trend->add_option("--since", args->since, "Only runs started on or after this date")->type_name("YYYY-MM-DD");
  trend->add_option("--window", args->window, "K: runs in the rolling baseline and the change-point median")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));
  trend->add_option("--fail-on-regression", args->fail_percent,
                    "Exit 1 when a candidate is SLOWER by >= PCT percent or newly failing; also the "
                    "smallest change marked on times")
      ->default_val(5)
      ->check(documented_range("--fail-on-regression"))
      ->type_name("PCT");
  trend->add_option("--html", args->html, "Self-contained HTML page with the charts")->type_name("FILE|-");
  trend->add_option("--md", args->md, "Markdown (e.g. for $GITHUB_STEP_SUMMARY)")->type_name("FILE|-");
  trend->callback([args] {
    if (args->db.empty()) args->db = default_history_url();
    run_trend(*args);
  });
}

}  // namespace kbench::cli
