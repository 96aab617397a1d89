#pragma once
// `kbench merge`: joins the results files of shards (or of separate runs) into one report.
#include <string>
#include <utility>
#include <vector>

#include "report/run_report.hpp"

namespace kbench {

// Refuses (InputError) a (problem, candidate) present in two inputs, and inputs whose
// environment.device_name or environment.torch differ unless `ignore_env`, and runs of
// differently named suites unless `allow_suite_mismatch`. Results are sorted
// by (problem, candidate) so the merged file, and its bootstrap CIs, do not depend on the order
// of the inputs. Complete only when every input was (planned evaluations add up).
RunReport merge_reports(const std::vector<std::pair<std::string, RunReport>>& named_reports,
                        bool ignore_env, bool allow_suite_mismatch = false);

// Throws InputError naming the first of environment.device_name / torch that differs.
void check_same_environment(const RunReport& a, const std::string& a_name, const RunReport& b,
                            const std::string& b_name);

}  // namespace kbench
