#pragma once
// A results file turned into what the history stores (history_store.hpp).
#include <string>
#include <vector>

#include "history/history_store.hpp"
#include "report/run_report.hpp"

namespace kbench {

struct HistoryEntry {
  StoredRun run;
  std::vector<StoredResult> results;
};

// The run key is the SHA-256 of the run as results_json() writes it (not of the file's bytes,
// so re-indenting a file does not make it a new run; the label is not part of it either).
// Throws InputError for an incomplete run: a trend point must be a whole run.
HistoryEntry history_entry(const RunReport& report, const std::string& source, const std::string& label,
                           const std::string& added_at);

}  // namespace kbench
