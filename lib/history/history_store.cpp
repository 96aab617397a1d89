// The history's SQL, written once for both databases: only TEXT, INTEGER and DOUBLE PRECISION
// columns, text primary keys (no auto-increment, whose syntax differs), $n placeholders.
#include "history/history_store.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/error.hpp"
#include "history/history_backends.hpp"

namespace kbench {
namespace {

const char* const kSchema[] = {
    "CREATE TABLE IF NOT EXISTS kbench_runs ("
    " run_key TEXT PRIMARY KEY, added_at TEXT NOT NULL, started_at TEXT NOT NULL,"
    " label TEXT NOT NULL, suite TEXT NOT NULL, device TEXT NOT NULL, device_name TEXT NOT NULL,"
    " torch TEXT NOT NULL, environment TEXT NOT NULL, evaluations INTEGER NOT NULL,"
    " correct INTEGER NOT NULL, pass_at_1 DOUBLE PRECISION NOT NULL,"
    " geomean_vs_eager DOUBLE PRECISION, geomean_vs_inductor DOUBLE PRECISION,"
    " results_json TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS kbench_results ("
    " run_key TEXT NOT NULL REFERENCES kbench_runs(run_key), problem TEXT NOT NULL,"
    " candidate TEXT NOT NULL, status TEXT NOT NULL, candidate_ms DOUBLE PRECISION,"
    " eager_ms DOUBLE PRECISION, inductor_ms DOUBLE PRECISION,"
    " speedup_vs_eager DOUBLE PRECISION, speedup_vs_inductor DOUBLE PRECISION,"
    " PRIMARY KEY (run_key, problem, candidate))",
    "CREATE INDEX IF NOT EXISTS kbench_runs_by_suite ON kbench_runs (suite, started_at)",
};

const char* const kRunColumns =
    "run_key, added_at, started_at, label, suite, device, device_name, torch, environment, "
    "evaluations, correct, pass_at_1, geomean_vs_eager, geomean_vs_inductor";

SqlValue number(std::optional<double> v) {
  if (!v) return std::nullopt;
  return fmt::format("{:.17g}", *v);
}
std::optional<double> to_double(const SqlValue& v) {
  if (!v) return std::nullopt;
  return std::strtod(v->c_str(), nullptr);
}
std::string text(const SqlValue& v) { return v.value_or(""); }

StoredRun run_from_row(const SqlRow& row) {
  StoredRun r;
  r.run_key = text(row[0]);
  r.added_at = text(row[1]);
  r.started_at = text(row[2]);
  r.label = text(row[3]);
  r.suite = text(row[4]);
  r.device = text(row[5]);
  r.device_name = text(row[6]);
  r.torch = text(row[7]);
  r.environment = nlohmann::json::parse(text(row[8]), nullptr, false);
  r.evaluations = std::strtoll(text(row[9]).c_str(), nullptr, 10);
  r.correct = std::strtoll(text(row[10]).c_str(), nullptr, 10);
  r.pass_at_1 = to_double(row[11]).value_or(0);
  r.geomean_vs_eager = to_double(row[12]);
  r.geomean_vs_inductor = to_double(row[13]);
  return r;
}

// " WHERE ..." for a filter on kbench_runs, with its parameters.
std::string where(const RunFilter& filter, std::vector<SqlValue>& params) {
  std::vector<std::string> terms;
  if (filter.suite) {
    params.emplace_back(*filter.suite);
    terms.push_back(fmt::format("suite = ${}", params.size()));
  }
  if (filter.since) {
    params.emplace_back(*filter.since);
    terms.push_back(fmt::format("started_at >= ${}", params.size()));
  }
  std::string out;
  for (const auto& t : terms) out += (out.empty() ? " WHERE " : " AND ") + t;
  return out;
}

}  // namespace

void HistoryStore::create_schema() {
  for (const char* statement : kSchema) query(statement, {});
}

std::optional<StoredRun> HistoryStore::find_run(const std::string& run_key) {
  const auto rows = query(fmt::format("SELECT {} FROM kbench_runs WHERE run_key = $1", kRunColumns), {run_key});
  if (rows.empty()) return std::nullopt;
  return run_from_row(rows.front());
}

void HistoryStore::add_run(const StoredRun& run, const std::vector<StoredResult>& results) {
  if (const auto old = find_run(run.run_key))
    throw InputError(fmt::format(
        "this run is already in the history {} (added {}{}, started {}); each run is stored once",
        url_, old->added_at, old->label.empty() ? "" : ", label '" + old->label + "'", old->started_at));
  query("BEGIN", {});
  try {
    query(fmt::format("INSERT INTO kbench_runs ({}, results_json) VALUES "
                      "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                      kRunColumns),
          {run.run_key, run.added_at, run.started_at, run.label, run.suite, run.device,
           run.device_name, run.torch, run.environment.dump(), std::to_string(run.evaluations),
           std::to_string(run.correct), number(run.pass_at_1), number(run.geomean_vs_eager),
           number(run.geomean_vs_inductor), run.results_json});
    for (const auto& r : results)
      query("INSERT INTO kbench_results (run_key, problem, candidate, status, candidate_ms, eager_ms, "
            "inductor_ms, speedup_vs_eager, speedup_vs_inductor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            {run.run_key, r.problem, r.candidate, r.status, number(r.candidate_ms), number(r.eager_ms),
             number(r.inductor_ms), number(r.speedup_vs_eager), number(r.speedup_vs_inductor)});
    query("COMMIT", {});
  } catch (...) {
    try {
      query("ROLLBACK", {});
    } catch (...) {  // the first error is the one to report
    }
    throw;
  }
}

std::vector<StoredRun> HistoryStore::runs(const RunFilter& filter) {
  std::vector<SqlValue> params;
  const std::string sql = fmt::format("SELECT {} FROM kbench_runs{} ORDER BY started_at, added_at, run_key",
                                      kRunColumns, where(filter, params));
  std::vector<StoredRun> out;
  for (const auto& row : query(sql, params)) out.push_back(run_from_row(row));
  return out;
}

std::vector<StoredResult> HistoryStore::results(const RunFilter& filter) {
  std::vector<SqlValue> params;
  const std::string sql = fmt::format(
      "SELECT run_key, problem, candidate, status, candidate_ms, eager_ms, inductor_ms, "
      "speedup_vs_eager, speedup_vs_inductor FROM kbench_results WHERE run_key IN "
      "(SELECT run_key FROM kbench_runs{}) ORDER BY problem, candidate",
      where(filter, params));
  std::vector<StoredResult> out;
  for (const auto& row : query(sql, params))
    out.push_back({text(row[0]), text(row[1]), text(row[2]), text(row[3]), to_double(row[4]),
                   to_double(row[5]), to_double(row[6]), to_double(row[7]), to_double(row[8])});
  return out;
}

std::string HistoryStore::load_results_json(const std::string& run_key) {
  const auto rows = query("SELECT results_json FROM kbench_runs WHERE run_key = $1", {run_key});
  if (rows.empty()) throw InputError(fmt::format("{}: no run {}", url_, run_key));
  return text(rows.front()[0]);
}

std::vector<std::string> HistoryStore::suites() {
  std::vector<std::string> out;
  for (const auto& row : query("SELECT DISTINCT suite FROM kbench_runs ORDER BY suite", {}))
    out.push_back(text(row[0]));
  return out;
}

std::vector<std::string> history_backends() {
  std::vector<std::string> out;
#ifdef KBENCH_WITH_SQLITE
  out.push_back("sqlite");
#endif
#ifdef KBENCH_WITH_POSTGRES
  out.push_back("postgresql");
#endif
  return out;
}

std::string default_history_url() {
  const char* env = std::getenv("KBENCH_HISTORY_DB");
  return env && *env ? env : "kbench-history.sqlite";
}

std::unique_ptr<HistoryStore> open_history_store(const std::string& url) {
  const bool postgres = url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
  if (postgres) {
#ifdef KBENCH_WITH_POSTGRES
    return open_postgres_history(url);
#else
    throw EnvironmentError(fmt::format(
        "--db {}: this kbench was built without PostgreSQL (libpq); install libpq-dev "
        "(scripts/setup.sh) and rebuild, or use an SQLite file", url));
#endif
  }
  const std::string file = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
  if (file.find("://") != std::string::npos)
    throw InputError(fmt::format("--db {}: unknown kind of database; give postgresql://... or an SQLite "
                                 "file path", url));
#ifdef KBENCH_WITH_SQLITE
  return open_sqlite_history(file, url);
#else
  throw EnvironmentError(fmt::format(
      "--db {}: this kbench was built without SQLite (libsqlite3); install libsqlite3-dev "
      "(scripts/setup.sh) and rebuild, or give a postgresql:// URL", url));
#endif
}

}  // namespace kbench
