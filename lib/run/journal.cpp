#include "run/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "model/codec.hpp"
#include "model/run_info.hpp"
#include "report/json_input.hpp"
#include "report/results_reader.hpp"

namespace kbench {
namespace {

constexpr int kJournalVersion = 1;

std::string hex(std::uint64_t value) { return fmt::format("{:016x}", value); }

std::string file_hash(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return hex(fnv1a(content.str()));
}

nlohmann::json header_json(const JournalHeader& h) {
  return {{"kbench_journal", kJournalVersion}, {"suite", h.suite_file}, {"device", to_string(h.device)},
          {"plan", h.plan},   {"planned", h.planned},      {"started_at", h.started_at}};
}

// Makes a new directory entry durable too: a crash right after creating the file must not
// lose it.
void sync_parent(const std::filesystem::path& file) {
  const auto parent = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const int dir = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

// What differs between the journal and this run, for the refusal of --resume: the header's
// fields, then the finished jobs whose key no longer matches the plan's at their index.
std::string describe_plan_change(const nlohmann::json& header, const JournalHeader& expected,
                                 const std::vector<std::string>& lines,
                                 const std::vector<std::string>& keys, const std::vector<Job>& jobs) {
  std::vector<std::string> changes;
  if (header.value("suite", "") != expected.suite_file)
    changes.push_back(fmt::format("the suite file (was {})", header.value("suite", "?")));
  if (header.value("device", "") != to_string(expected.device))
    changes.push_back(fmt::format("the device (was {}, now {})", header.value("device", "?"),
                                  to_string(expected.device)));
  if (header.value("planned", std::size_t(0)) != expected.planned)
    changes.push_back(fmt::format("the number of evaluations (was {}, now {})",
                                  header.value("planned", std::size_t(0)), expected.planned));
  std::size_t changed_jobs = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    JournalLine line;
    try {
      line = journal_line_from_json(parse_json_text(lines[i], ""), "");
    } catch (const std::exception&) {
      continue;  // damaged lines are reported by resume itself
    }
    if (line.index < keys.size() && line.key == keys[line.index]) continue;
    if (++changed_jobs > 3) continue;
    changes.push_back(fmt::format(
        "{} ({})", result_label(line.result),
        line.index < jobs.size() ? "its problem or candidate file, or its settings, changed"
                                 : "no longer in the plan"));
  }
  if (changed_jobs > 3) changes.push_back(fmt::format("{} more finished jobs", changed_jobs - 3));
  if (changes.empty()) changes.push_back("a job not yet finished (its files or settings) changed");
  return join(changes, "; ");
}

}  // namespace

std::string job_key(const Job& planned) {
  Job job = planned;
  if (job.origin) job.origin->from_cache = false;
  const std::string identity = to_json(job).dump() + "\n" + file_hash(job.problem_file) + "\n" +
                               file_hash(job.candidate_file);
  return hex(fnv1a(identity));
}

std::vector<std::string> job_keys(const std::vector<Job>& jobs) {
  std::vector<std::string> keys;
  for (const auto& job : jobs) keys.push_back(job_key(job));
  return keys;
}

std::string plan_fingerprint(const Device& device, const std::vector<std::string>& keys) {
  std::string all = to_string(device);
  for (const auto& key : keys) all += "\n" + key;
  return hex(fnv1a(all));
}

std::filesystem::path default_journal_path(const std::filesystem::path& results_file) {
  return results_file.string() + ".journal.jsonl";
}

Journal::Journal(const std::filesystem::path& file, const JournalHeader& header,
                 std::vector<std::string> keys)
    : file_(file), keys_(std::move(keys)) {
  fd_ = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(fmt::format("{}: cannot write the journal ({}); choose another --journal path",
                                 file.string(), std::strerror(errno)));
  write_line(header_json(header).dump());
  sync_parent(file);
}

Journal::Journal(Journal&& other) noexcept
    : file_(std::move(other.file_)), fd_(other.fd_), keys_(std::move(other.keys_)) {
  other.fd_ = -1;
}

Journal::~Journal() {
  if (fd_ >= 0) close(fd_);
}

void Journal::write_line(const std::string& line) {
  // One write per line: a kill mid-line leaves a line without its newline, which resume drops.
  const std::string text = line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error(fmt::format("{}: cannot append to the journal: {}", file_.string(),
                                           std::strerror(errno)));
    written += std::size_t(n);
  }
  if (fsync(fd_) != 0)
    throw std::runtime_error(fmt::format("{}: fsync failed: {}", file_.string(), std::strerror(errno)));
}

void Journal::append(std::size_t index, const JobResult& result) { append(index, keys_.at(index), result); }

void Journal::append(std::size_t index, const std::string& key, const JobResult& result) {
  write_line(journal_line_json(index, key, result, build_git_commit()).dump());
}

Journal Journal::resume(const std::filesystem::path& file, const JournalHeader& expected,
                        const std::vector<Job>& jobs, std::vector<std::string> keys,
                        std::vector<JournalEntry>& done, std::vector<JournalEntry>& pushed,
                        std::string& started_at) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: no journal to resume; run without --resume (or name the "
                                 "journal with --journal)",
                                 name));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  // Everything after the last newline is a line the killed run did not finish writing.
  const std::size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;

  std::vector<std::string> lines;
  for (std::size_t start = 0; start < complete;) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (lines.empty()) throw InputError(fmt::format("{}: the journal has no header line; run without --resume", name));

  // Nesting bounded like any JSON kbench reads back (report/json_input.hpp): a hand-edited line
  // nested 100,000 deep would overflow the stack when it is destroyed.
  auto parse = [&](std::size_t i) {
    const std::string where = fmt::format("{}:{}", name, i + 1);
    try {
      return parse_json_text(lines[i], where);
    } catch (const InputError& e) {
      const std::string detail = std::string(e.what()).substr(where.size() + 2);  // after "WHERE: "
      throw InputError(fmt::format("{}: not a JSON line ({}); the journal is damaged (run without "
                                   "--resume to start over)",
                                   where, detail));
    }
  };
  // A value of the wrong type in a hand-edited journal is bad input too, not a kbench bug.
  try {
    const nlohmann::json header = parse(0);
    if (!header.is_object() || header.value("kbench_journal", 0) != kJournalVersion)
      throw InputError(fmt::format("{}:1: not a kbench journal (version {})", name, kJournalVersion));
    if (header.value("plan", "") != expected.plan || header.value("device", "") != to_string(expected.device) ||
        header.value("suite", "") != expected.suite_file) {
      throw InputError(fmt::format(
          "{}: the journal is from another plan (suite {}, device {}, {} jobs, plan {}) than this "
          "run (suite {}, device {}, {} jobs, plan {}). What changed: {}. Run without --resume to "
          "start over, or give --journal a new path",
          name, header.value("suite", "?"), header.value("device", "?"), header.value("planned", 0),
          header.value("plan", "?"), expected.suite_file, to_string(expected.device), expected.planned,
          expected.plan, describe_plan_change(header, expected, lines, keys, jobs)));
    }
    started_at = header.value("started_at", expected.started_at);

    std::vector<bool> seen(jobs.size(), false);
    std::set<std::string> pushed_keys;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const std::string where = fmt::format("{}:{}", name, i + 1);
      JournalLine line;
      try {
        line = journal_line_from_json(parse(i), "");
      } catch (const CodecError& e) {
        throw InputError(fmt::format("{}: {}: expected {{\"index\", \"key\", \"result\"}}; the journal is damaged",
                                     where, e.what()));
      }
      const auto index = line.index;
      if (index >= expected.planned) {  // pushed while the run went: matched by key later
        if (line.key.empty()) throw InputError(where + ": a pushed job's line has no key; the journal is damaged");
        if (!pushed_keys.insert(line.key).second)
          throw InputError(fmt::format("{}: job {} is recorded twice", where, line.key));
        JournalEntry entry;
        entry.index = index;
        entry.key = line.key;
        entry.commit = line.commit;
        entry.result = read_result_json(line.result, where, jobs.empty() ? expected.device : jobs[0].device);
        pushed.push_back(std::move(entry));
        continue;
      }
      if (index >= jobs.size() || line.key != keys[index])
        throw InputError(fmt::format("{}: job {} does not match this run's plan", where, index));
      if (seen[index]) throw InputError(fmt::format("{}: job {} is recorded twice", where, index));
      seen[index] = true;
      JournalEntry entry;
      entry.index = index;
      entry.key = keys[index];
      entry.commit = line.commit;
      entry.result = read_result_json(line.result, where, jobs[index].device);
      // The plan's Job carries what the results file does not (settings, sizes).
      const Device ran_on = entry.result.schedule ? entry.result.schedule->device : jobs[index].device;
      entry.result.job = jobs[index];
      entry.result.job.device = ran_on;
      done.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: the journal is damaged ({}); run without --resume to start over",
                                 name, e.what()));
  }
  if (complete < text.size()) std::filesystem::resize_file(file, complete);
  const int fd = open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    throw InputError(fmt::format("{}: cannot append to the journal ({})", name, std::strerror(errno)));
  return Journal(file, fd, std::move(keys));
}

Journal Journal::resume(const std::filesystem::path& file, const JournalHeader& expected,
                        const std::vector<Job>& jobs, std::vector<std::string> keys,
                        std::vector<JournalEntry>& done, std::string& started_at) {
  std::vector<JournalEntry> pushed;
  Journal journal = resume(file, expected, jobs, std::move(keys), done, pushed, started_at);
  if (!pushed.empty())
    throw InputError(fmt::format("{}: job {} does not match this run's plan", file.string(), pushed.front().index));
  return journal;
}

}  // namespace kbench
