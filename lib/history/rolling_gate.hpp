#pragma once
// The regression gate of `kbench compare` (lib/report/compare.hpp), applied to the latest
// stored run against a rolling baseline made of the K runs before it.
#include <optional>
#include <string>
#include <vector>

#include "history/history_store.hpp"
#include "report/compare.hpp"
#include "report/run_report.hpp"

namespace kbench {

// Per (problem, candidate), the result of the run with the median headline candidate time among
// the runs where it was correct (the upper median for an even count); when it was correct in
// none, its most recent result. A real measured result with its own samples, so compare's CIs
// and verdicts apply unchanged, and one slow or fast night does not move the baseline.
// `previous` is oldest first; the baseline takes the newest one's environment and metadata.
RunReport rolling_baseline(const std::vector<RunReport>& previous);

struct GateResult {
  std::string latest_label;           // the judged run (its label, else its start time)
  std::vector<std::string> baseline;  // labels of the runs the baseline was made of
  std::optional<Comparison> comparison;  // unset when there is nothing to compare with
  std::string note;                      // why not, or which runs were left out
  bool regression = false;
};

// Loads the latest run of `runs` and up to `window` runs before it with the same device_name and
// torch (compare refuses others), then compares. `runs` is oldest first.
GateResult rolling_gate(HistoryStore& store, const std::vector<StoredRun>& runs, std::size_t window,
                        double fail_percent);

}  // namespace kbench
