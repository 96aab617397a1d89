#pragma once
// The nightly history: one row per run and one per result (docs/nightly.md). Two databases sit
// behind one interface: an SQLite file (the default) and PostgreSQL (a `postgresql://` URL).
// Both speak the same SQL (history_store.cpp); an implementation only runs statements.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

// A run's metadata and suite-level figures (what the trend draws), plus the results file itself
// (what the regression gate re-reads; statistics are recomputed from its samples).
struct StoredRun {
  std::string run_key;     // SHA-256 of the run's content: the same run cannot be added twice
  std::string added_at;    // UTC, ISO 8601
  std::string started_at;  // the run's own start
  std::string label;       // e.g. the commit; given by the user
  std::string suite;
  std::string device, device_name, torch;
  nlohmann::json environment = nlohmann::json::object();
  std::int64_t evaluations = 0, correct = 0;
  double pass_at_1 = 0;
  std::optional<double> geomean_vs_eager, geomean_vs_inductor;
  std::string results_json;  // the whole results file, as written by results_json()
};

// One result's key figures (times in ms are the headline statistic).
struct StoredResult {
  std::string run_key, problem, candidate, status;
  std::optional<double> candidate_ms, eager_ms, inductor_ms, speedup_vs_eager, speedup_vs_inductor;
};

struct RunFilter {
  std::optional<std::string> suite;
  std::optional<std::string> since;  // runs that started at or after this ISO 8601 date/time
};

using SqlValue = std::optional<std::string>;  // NULL or text; numbers travel as text
using SqlRow = std::vector<SqlValue>;

class HistoryStore {
 public:
  virtual ~HistoryStore() = default;
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // One transaction. Throws InputError when a run with the same run_key is stored already.
  void add_run(const StoredRun& run, const std::vector<StoredResult>& results);
  std::optional<StoredRun> find_run(const std::string& run_key);
  // Oldest first (started_at, then added_at). Without results_json (see load_results_json).
  std::vector<StoredRun> runs(const RunFilter& filter);
  std::vector<StoredResult> results(const RunFilter& filter);
  std::string load_results_json(const std::string& run_key);
  std::vector<std::string> suites();

  [[nodiscard]] const std::string& url() const { return url_; }

 protected:
  explicit HistoryStore(std::string url) : url_(std::move(url)) {}
  // Creates the tables when missing; called by the implementations once connected.
  void create_schema();
  // Runs one statement with $1..$n placeholders (numbered in order of first use, which both
  // SQLite and PostgreSQL accept); returns its rows, every column as text or NULL.
  // Throws EnvironmentError naming the database on failure.
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) = 0;

 private:
  std::string url_;
};

// `url`: "postgresql://..." or "postgres://..." (libpq's URI), "sqlite:PATH", or a file path
// (SQLite). Throws EnvironmentError when this kbench was built without that database's library,
// or the database cannot be opened.
std::unique_ptr<HistoryStore> open_history_store(const std::string& url);

// The default --db: $KBENCH_HISTORY_DB, else kbench-history.sqlite in the current directory.
std::string default_history_url();

// Which back ends this build has ("sqlite", "postgresql").
std::vector<std::string> history_backends();

}  // namespace kbench
