#pragma once
// The run journal: every finished job as one JSON line, written and fsynced before the reports
// are rewritten, so `kbench run --resume` continues a killed run without repeating or losing a
// job. Format (docs/results-format.md#journal): a header line naming the run and a fingerprint
// of its plan, then {"index", "key", "commit", "result"} lines in completion order (commit: the
// build that measured the result, so a run resumed by another build says so).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "model/job.hpp"
#include "model/job_result.hpp"

namespace kbench {

// A job's identity: its JSON (problem, candidate path, device, settings, sizes) and the content
// of its problem and candidate files. Hex text. A generated candidate's `from_cache` is left out:
// the re-run of --resume is served from the cache that the killed run filled.
std::string job_key(const Job& job);

std::vector<std::string> job_keys(const std::vector<Job>& jobs);

// The plan's identity: the device as resolved and every job's key, in order.
std::string plan_fingerprint(const Device& device, const std::vector<std::string>& keys);

struct JournalHeader {
  std::string suite_file;
  Device device;
  std::string plan;  // plan_fingerprint()
  std::size_t planned = 0;
  std::string started_at;
};

struct JournalEntry {
  std::size_t index = 0;  // into the plan (a pushed job: its index in the run that wrote it)
  std::string key;        // job_key()
  JobResult result;       // with the planned Job (a pushed job: the Job as the results file has it)
  std::string commit;     // the build that measured it; "unknown" for a line written before 2026-12-04
};

class Journal {
 public:
  // Starts a fresh journal at `file` (an old one is replaced) and writes the header. `keys`:
  // job_keys() of the plan. Throws InputError when the file cannot be written.
  Journal(const std::filesystem::path& file, const JournalHeader& header,
          std::vector<std::string> keys);

  // Opens an existing journal to continue it. Throws InputError (exit 2) when there is none,
  // when it belongs to another plan, or when a line other than a torn last one is malformed.
  // A torn last line (the run was killed mid-write) is cut off. `jobs` is this run's plan.
  // Lines of jobs pushed after the plan (index >= the header's `planned`) go to `pushed`, one per
  // key; the run matches them by key when it pushes those jobs again.
  static Journal resume(const std::filesystem::path& file, const JournalHeader& expected,
                        const std::vector<Job>& jobs, std::vector<std::string> keys,
                        std::vector<JournalEntry>& done, std::vector<JournalEntry>& pushed,
                        std::string& started_at);
  // The same for a run that pushes nothing after its plan: a pushed job's line is refused.
  static Journal resume(const std::filesystem::path& file, const JournalHeader& expected,
                        const std::vector<Job>& jobs, std::vector<std::string> keys,
                        std::vector<JournalEntry>& done, std::string& started_at);

  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&&) = delete;
  Journal(const Journal&) = delete;
  ~Journal();

  // Appends plan job `index`'s result as one line and fsyncs it. Throws std::runtime_error on
  // I/O failure.
  void append(std::size_t index, const JobResult& result);
  // The same for a job pushed after the plan (index >= planned), under its own key.
  void append(std::size_t index, const std::string& key, const JobResult& result);

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

 private:
  Journal(std::filesystem::path file, int fd, std::vector<std::string> keys)
      : file_(std::move(file)), fd_(fd), keys_(std::move(keys)) {}
  void write_line(const std::string& line);

  std::filesystem::path file_;
  int fd_ = -1;
  std::vector<std::string> keys_;
};

// The default journal of a results file: "<results>.journal.jsonl".
std::filesystem::path default_journal_path(const std::filesystem::path& results_file);

}  // namespace kbench
