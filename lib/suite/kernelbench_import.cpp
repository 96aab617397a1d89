// `kbench import kernelbench`: KernelBench checkout -> suite YAML (docs/cli.md#import).
#include "suite/kernelbench_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "report/results_json.hpp"

namespace kbench {
namespace {

namespace fs = std::filesystem;

// KernelBench's conventions (src/kernelbench/eval.py): inputs and model are cast to `precision`
// (fp32 by default) and outputs compared with atol = rtol = get_tolerance_for_precision():
// 1e-4 for fp32 (torchbench's), 1e-2 for fp16 and bf16. v0 and v0.1 used 1e-2 for fp32 too.
struct Precision {
  const char* name;
  const char* dtype;
  double tolerance;
};
constexpr Precision kPrecisions[] = {
    {"fp32", "float32", 1e-4}, {"fp16", "float16", 1e-2}, {"bf16", "bfloat16", 1e-2}};

const Precision& precision_of(const std::string& name) {
  for (const auto& p : kPrecisions)
    if (name == p.name) return p;
  throw InputError(fmt::format("--precision '{}': KernelBench's precisions are fp32, fp16, bf16", name));
}

const std::regex kProblemFile(R"(^([0-9]+)_(.+)\.py$)");
const std::regex kLevelFolder(R"(^level([0-9]+)$)");

std::set<int> levels_in(const fs::path& root) {
  std::set<int> levels;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return levels;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::smatch m;
    const auto folder = entry.path().filename().string();
    if (!entry.is_directory() || !std::regex_match(folder, m, kLevelFolder)) continue;
    for (const auto& file : fs::directory_iterator(entry.path(), ec)) {
      const auto name = file.path().filename().string();
      if (file.is_regular_file() && std::regex_match(name, kProblemFile)) {
        levels.insert(std::stoi(m[1].str()));
        break;
      }
    }
  }
  return levels;
}

std::vector<std::string> words_of(const std::string& name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += char(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// Operation families by the words of KernelBench's file names (lower case): a word containing a
// key puts the problem in the family; a key written "=key" must be the whole word (`max` is a
// reduction, `softmax` is not; `sum` is, `cumsum` is a scan). Order = order of the tags written.
struct Family {
  const char* tag;
  std::vector<const char*> keys;
};
const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"matmul", {"matmul", "matrix", "gemm", "bmm", "multiplication"}},
      {"conv", {"conv"}},
      {"pooling", {"pool"}},
      {"norm", {"norm"}},
      {"softmax", {"softmax"}},
      {"activation",
       {"relu", "gelu", "sigmoid", "tanh", "swish", "=elu", "selu", "softplus", "softsign", "mish",
        "activation"}},
      {"reduction", {"reduction", "=sum", "=mean", "=max", "=min", "argmax", "argmin", "logsumexp"}},
      {"scan", {"cumsum", "cumprod"}},
      {"loss", {"loss"}},
      {"attention", {"attention", "transformer", "=gpt", "=vit"}},
      {"rnn", {"rnn", "lstm", "gru", "mamba"}},
  };
  return table;
}

bool is_family_word(const std::string& word, const Family& family) {
  for (const char* key : family.keys) {
    if (key[0] == '=' ? word == key + 1 : word.find(key) != std::string::npos) return true;
  }
  return false;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string relative_to(const fs::path& path, const fs::path& dir) {
  const auto relative = path.lexically_normal().lexically_relative(dir.lexically_normal());
  return relative.empty() ? path.string() : relative.string();
}

bool is_inside(const fs::path& path, const fs::path& dir) {
  const auto relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

// The checkout whose files must stay unmodified: the folder above KernelBench/ when that is a
// KernelBench clone (src/kernelbench, .git), else the KernelBench/ folder itself.
fs::path protected_tree(const fs::path& root) {
  const auto top = root.parent_path();
  std::error_code ec;
  if (fs::exists(top / "src" / "kernelbench", ec) || fs::exists(top / ".git", ec)) return top;
  return root;
}

}  // namespace

fs::path find_kernelbench_root(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(fmt::format("{}: no such directory (give a KernelBench checkout: git clone "
                                 "https://github.com/ScalingIntelligence/KernelBench)",
                                 dir.string()));
  const auto absolute = fs::weakly_canonical(fs::absolute(dir));
  for (const auto& root : {absolute / "KernelBench", absolute})
    if (!levels_in(root).empty()) return root;
  throw InputError(fmt::format(
      "{}: not a KernelBench checkout: expected {}/KernelBench/level1/1_<Name>.py (or the "
      "KernelBench/ folder itself, holding level1/, level2/, ...); clone "
      "https://github.com/ScalingIntelligence/KernelBench",
      dir.string(), dir.string()));
}

std::vector<std::string> kernelbench_tags(int level, const std::string& name) {
  std::vector<std::string> tags;
  const auto words = words_of(name);
  for (const auto& family : families()) {
    bool found = false;
    for (std::size_t i = 0; i < words.size() && !found; ++i) {
      // "Max_Pooling_2D" is pooling, not a max reduction.
      const bool before_pool = i + 1 < words.size() && words[i + 1].rfind("pool", 0) == 0;
      found = !(before_pool && std::string(family.tag) == "reduction") &&
              is_family_word(words[i], family);
    }
    if (found) tags.push_back(family.tag);
  }
  tags.push_back(level == 1 ? "single_op" : level == 2 ? "fusion" : "architecture");
  return tags;
}

std::vector<KernelBenchProblem> scan_kernelbench(const fs::path& root, const std::vector<int>& levels) {
  const auto present = levels_in(root);
  std::vector<KernelBenchProblem> problems;
  for (int level : levels) {
    if (!present.count(level)) {
      std::vector<std::string> have;
      for (int l : present) have.push_back(std::to_string(l));
      throw InputError(fmt::format("{}: no level{}/ with problems here; this checkout has levels {}",
                                   root.string(), level, join(have, ", ")));
    }
    std::vector<KernelBenchProblem> found;
    for (const auto& entry : fs::directory_iterator(root / fmt::format("level{}", level))) {
      std::smatch m;
      const auto file_name = entry.path().filename().string();
      if (!entry.is_regular_file() || !std::regex_match(file_name, m, kProblemFile)) continue;
      KernelBenchProblem p;
      p.level = level;
      p.number = std::stoi(m[1].str());
      p.name = m[2].str();
      p.id = fmt::format("L{}_{}_{}", level, p.number, p.name);
      p.file = entry.path();
      p.tags = kernelbench_tags(level, p.name);
      found.push_back(std::move(p));
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.number < b.number; });
    problems.insert(problems.end(), found.begin(), found.end());
  }
  return problems;
}

std::string expand_problem_pattern(std::string pattern, const KernelBenchProblem& problem) {
  const std::pair<std::string, std::string> fields[] = {{"{level}", std::to_string(problem.level)},
                                                        {"{number}", std::to_string(problem.number)},
                                                        {"{name}", problem.name},
                                                        {"{id}", problem.id}};
  for (const auto& [key, value] : fields)
    for (auto at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
      pattern.replace(at, key.size(), value);
  return pattern;
}

std::string kernelbench_suite_yaml(const std::vector<KernelBenchProblem>& problems,
                                   const KernelBenchImportOptions& options, const fs::path& suite_dir) {
  const Precision& precision = precision_of(options.precision);
  // Patterns as the suite stores them: relative to its folder ({id} is kept for the loader).
  std::vector<std::string> patterns;
  if (options.candidate_patterns.empty()) {
    patterns.push_back("candidates/{id}/*.py");
  } else {
    for (const auto& p : options.candidate_patterns)
      patterns.push_back(relative_to(fs::absolute(p), suite_dir));
  }
  const bool per_problem = std::any_of(patterns.begin(), patterns.end(), [](const auto& p) {
    return p.find("{level}") != std::string::npos || p.find("{number}") != std::string::npos ||
           p.find("{name}") != std::string::npos;
  });
  std::ostringstream out;
  std::vector<std::string> level_names;
  for (int l : options.levels) level_names.push_back(std::to_string(l));
  out << "# Written by `kbench import kernelbench` from " << problems.size() << " problems of "
      << relative_to(find_kernelbench_root(options.checkout), suite_dir) << " (levels "
      << join(level_names, ", ") << ").\n"
      << "# Ids are L<level>_<file stem>; tags come from the file names (docs/cli.md#import).\n"
      << "schema_version: 1\n"
      << "suite: " << quoted("kernelbench-L" + join(level_names, "")) << "\n"
      << "description: " << quoted("KernelBench levels " + join(level_names, ", ") + ", unmodified")
      << "\n"
      << "defaults:\n"
      << "  # KernelBench's conventions (src/kernelbench/eval.py): inputs and weights cast to the\n"
      << "  # precision (--precision " << precision.name << "), outputs compared with\n"
      << "  # atol = rtol = get_tolerance_for_precision(" << precision.name << ") = "
      << fmt::format("{:g}", precision.tolerance) << " (torchbench's values; 1e-2 for fp16/bf16).\n"
      << "  dtype: " << precision.dtype << "\n"
      << "  atol: " << fmt::format("{:g}", precision.tolerance) << "\n"
      << "  rtol: " << fmt::format("{:g}", precision.tolerance) << "\n";
  if (!per_problem) {
    out << "candidates:\n";
    for (const auto& p : patterns) out << "  - " << quoted(p) << "\n";
  }
  out << "problems:\n";
  for (const auto& problem : problems) {
    out << "  - id: " << quoted(problem.id) << "\n"
        << "    file: " << quoted(relative_to(problem.file, suite_dir)) << "\n"
        << "    level: " << problem.level << "\n"
        << "    tags: [" << join(problem.tags, ", ") << "]\n";
    if (per_problem) {
      out << "    candidates:\n";
      for (const auto& p : patterns) out << "      - " << quoted(expand_problem_pattern(p, problem)) << "\n";
    }
  }
  return out.str();
}

std::vector<KernelBenchProblem> import_kernelbench(const KernelBenchImportOptions& given) {
  KernelBenchImportOptions options = given;
  std::sort(options.levels.begin(), options.levels.end());
  options.levels.erase(std::unique(options.levels.begin(), options.levels.end()), options.levels.end());
  if (options.levels.empty()) throw InputError("--levels: give at least one level, e.g. 1,2,3");
  precision_of(options.precision);  // a bad name fails before anything is read
  const fs::path root = find_kernelbench_root(options.checkout);
  const fs::path output = fs::weakly_canonical(fs::absolute(options.output));
  const fs::path tree = protected_tree(root);
  if (is_inside(output, tree))
    throw InputError(fmt::format("-o {}: inside the KernelBench checkout {}, which kbench never "
                                 "writes to; write the suite elsewhere (it refers to the checkout "
                                 "by relative paths)",
                                 options.output.string(), tree.string()));
  std::error_code ec;
  if (fs::exists(output, ec) && !options.force)
    throw InputError(fmt::format("-o {}: the file exists; kbench does not overwrite it (remove it, "
                                 "choose another name, or pass --force)",
                                 options.output.string()));
  if (!fs::is_directory(output.parent_path(), ec))
    throw InputError(fmt::format("-o {}: the folder {} does not exist", options.output.string(),
                                 output.parent_path().string()));
  const auto problems = scan_kernelbench(root, options.levels);
  const auto text = kernelbench_suite_yaml(problems, options, output.parent_path());
  write_file_atomically(output, [&](std::ostream& out) { out << text; });
  return problems;
}

}  // namespace kbench
