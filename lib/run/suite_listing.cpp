#include "run/suite_listing.hpp"

#include <fmt/format.h>

#include <map>

#include "core/text.hpp"
#include "report/text_table.hpp"
#include "run/job_planning.hpp"

namespace kbench {
namespace {

std::string count(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string display_path(const std::filesystem::path& path) {
  // Relative to the current directory when under it: shorter, and what a user types.
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  if (!ec) {
    const auto relative = path.lexically_relative(cwd);
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
  }
  return path.string();
}

std::string sizes_text(const Problem& p) {
  if (p.sizes.empty()) return "as in file";
  std::vector<std::string> parts;
  for (const auto& [kind, constants] : p.sizes) {
    std::vector<std::string> values;
    for (const auto& [name, value] : constants.items()) values.push_back(name + "=" + value.dump());
    parts.push_back(kind + ": " + join(values, " "));
  }
  return join(parts, "; ");
}

struct Totals {
  std::map<int, std::size_t> by_level;
  std::map<std::string, std::size_t> by_tag;
  std::size_t candidates = 0;
  std::size_t without_candidates = 0;
};

Totals totals_of(const Suite& suite, const std::vector<std::vector<std::filesystem::path>>& files) {
  Totals t;
  for (std::size_t i = 0; i < suite.problems.size(); ++i) {
    const auto& p = suite.problems[i];
    t.by_level[p.level]++;
    for (const auto& tag : p.tags) t.by_tag[tag]++;
    t.candidates += files[i].size();
    if (files[i].empty()) t.without_candidates++;
  }
  return t;
}

std::vector<std::vector<std::filesystem::path>> all_candidates(const Suite& suite) {
  std::vector<std::vector<std::filesystem::path>> files;
  for (const auto& p : suite.problems) files.push_back(candidate_files(suite, p));
  return files;
}

}  // namespace

nlohmann::json suite_listing_json(const Suite& suite, std::size_t total_problems) {
  const auto files = all_candidates(suite);
  nlohmann::json problems = nlohmann::json::array();
  for (std::size_t i = 0; i < suite.problems.size(); ++i) {
    const auto& p = suite.problems[i];
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [kind, constants] : p.sizes) sizes[kind] = constants;
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& f : files[i]) paths.push_back(f.string());
    problems.push_back({{"id", p.id},
                        {"file", p.file.string()},
                        {"level", p.level},
                        {"tags", p.tags},
                        {"sizes", sizes},
                        {"degenerate_reason", p.degenerate_reason ? nlohmann::json(*p.degenerate_reason)
                                                                  : nlohmann::json(nullptr)},
                        {"candidates", {{"patterns", p.candidate_patterns},
                                        {"count", files[i].size()},
                                        {"files", paths}}}});
  }
  const Totals t = totals_of(suite, files);
  nlohmann::json by_level = nlohmann::json::object();
  for (const auto& [level, n] : t.by_level) by_level[std::to_string(level)] = n;
  return {{"suite", suite.name},
          {"file", suite.file.string()},
          {"problems", problems},
          {"summary",
           {{"problems", suite.problems.size()},
            {"suite_problems", total_problems},
            {"by_level", by_level},
            {"by_tag", t.by_tag},
            {"candidates", t.candidates},
            {"problems_without_candidates", t.without_candidates}}}};
}

std::string suite_listing_text(const Suite& suite, std::size_t total_problems) {
  const auto files = all_candidates(suite);
  std::string out = fmt::format("suite '{}' ({})\n", suite.name, display_path(suite.file));
  TextTable table({"ID", "LEVEL", "TAGS", "CANDIDATES", "SIZES"}, {false, true, false, true, false});
  for (std::size_t i = 0; i < suite.problems.size(); ++i) {
    const auto& p = suite.problems[i];
    table.add_row({p.id, std::to_string(p.level), p.tags.empty() ? "-" : join(p.tags, ","),
                   std::to_string(files[i].size()), sizes_text(p)});
  }
  // Each problem's row, then its notes: degenerate reason and candidate files.
  out += table.header_lines();
  for (std::size_t i = 0; i < suite.problems.size(); ++i) {
    const auto& p = suite.problems[i];
    out += table.row_line(i);
    if (p.degenerate_reason) out += "    degenerate: " + *p.degenerate_reason + "\n";
    for (const auto& f : files[i]) out += "    " + display_path(f) + "\n";
  }
  const Totals t = totals_of(suite, files);
  std::vector<std::string> levels, tags;
  for (const auto& [level, n] : t.by_level) levels.push_back(fmt::format("L{} {}", level, n));
  for (const auto& [tag, n] : t.by_tag) tags.push_back(fmt::format("{} {}", tag, n));
  out += fmt::format("\n{}{} ({}); {}", count(suite.problems.size(), "problem"),
                     suite.problems.size() == total_problems
                         ? std::string()
                         : fmt::format(" of {} selected", total_problems),
                     join(levels, ", "), count(t.candidates, "candidate file"));
  if (t.without_candidates)
    out += fmt::format("; {} no candidate file (`run` refuses {})",
                       t.without_candidates == 1 ? "1 problem matches" : fmt::format("{} problems match", t.without_candidates),
                       t.without_candidates == 1 ? "it" : "them");
  out += "\ntags: " + (tags.empty() ? std::string("(none)") : join(tags, ", ")) + "\n";
  return out;
}

std::string planned_jobs_text(const Suite& suite, const std::vector<Job>& jobs, const Device& device) {
  std::string out = fmt::format("dry run: suite '{}': {}, {} on {}; nothing is run\n", suite.name,
                                count(suite.problems.size(), "problem"), count(jobs.size(), "evaluation"),
                                to_string(device));
  TextTable table({"#", "PROBLEM", "LEVEL", "CANDIDATE", "FILE"}, {true, false, true, false, false});
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    table.add_row({std::to_string(i + 1), j.problem_id, std::to_string(j.level), j.candidate,
                   display_path(j.candidate_file)});
  }
  return out + table.str();
}

}  // namespace kbench
