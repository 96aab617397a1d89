#pragma once
// What a results file records about the run that wrote it (issue #17): the command line, the
// kbench version and commit, and when it started and finished.
#include <map>
#include <string>
#include <vector>

namespace kbench {

struct RunInfo {
  std::vector<std::string> command_line;  // argv, as given
  std::string kbench_version;
  std::string git_commit = "unknown";  // compiled in; "unknown" when built outside a checkout
  std::string started_at;              // UTC, ISO 8601
  std::string finished_at;             // UTC, ISO 8601; "" while the run goes on
  // The builds that measured the results, with how many each: a resumed run may hold results
  // of an earlier build (its journal lines say which). Written only when another than git_commit.
  std::map<std::string, std::size_t> measured_by;
};

// Recorded once by `main` before the command runs; current_run_info() reads it. A process runs
// one command, and the command line is the process's, so it is kept where every command sees it.
void record_command_line(int argc, const char* const* argv);

// This process's run: the recorded command line, this build's version and commit, started now.
RunInfo current_run_info();

// The compiled-in commit of this build (core/build_info.hpp.in), or "unknown".
const char* build_git_commit();

std::string utc_now_iso8601();

}  // namespace kbench
