// load_suite(): YAML -> Suite, with every error pointing at file:line:col.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "device/device.hpp"
#include "suite/number_range.hpp"
#include "suite/suite.hpp"
#include "device/device.hpp"
#include "model/tolerance.hpp"
#include "suite/yaml_value.hpp"

namespace kbench {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"eager", "inductor"};
  return names;
}

double default_memory_limit_gb() {
  const double ram_gb = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE)) / double(1ull << 30);
  return std::min(32.0, 0.75 * ram_gb);
}

const std::vector<std::string>& eval_setting_keys() {
  static const std::vector<std::string> keys = {"dtype",     "atol",          "rtol",
                                                "seeds",     "timing",        "baselines",
                                                "inductor_mode", "timeout_s",
                                                "compile_timeout_s", "run_timeout_s", "build_timeout_s",
                                                "memory_limit_gb", "output_cap_mb",
                                                "file_size_limit_gb",
                                                "checks", "require_custom_kernel",
                                                "min_custom_kernel_share", "flag_speedup_above",
                                                "alt_inputs", "skip_checks"};
  return keys;
}

namespace {

const std::vector<std::string> kTopKeys = {"schema_version", "suite", "description", "defaults",
                                           "candidates", "problems", "generate"};
const std::vector<std::string> kProblemKeys = {"id",         "file",      "level",
                                               "tags",       "sizes",     "alt_sizes",
                                               "candidates", "overrides", "description",
                                               "degenerate", "degenerate_reason"};

class SuiteParser {
 public:
  explicit SuiteParser(std::filesystem::path file) : file_(std::move(file)) {}

  Suite parse() {
    std::ifstream in(file_);
    if (!in) throw InputError(fmt::format("{}: cannot open the suite file", file_.string()));
    YAML::Node root;
    try {
      root = YAML::Load(in);
    } catch (const YAML::ParserException& e) {
      throw InputError(fmt::format("{}:{}:{}: YAML syntax error: {}", file_.string(),
                                   e.mark.line + 1, e.mark.column + 1, e.msg));
    }
    if (!root.IsMap()) fail(root, "the suite must be a YAML mapping with `suite:` and `problems:`");
    check_no_duplicate_keys(root);
    check_keys(root, kTopKeys, "suite");

    Suite suite;
    suite.file = std::filesystem::absolute(file_).lexically_normal();
    suite.schema_version = root["schema_version"] ? integer(root["schema_version"], "schema_version") : 1;
    if (suite.schema_version != kSuiteSchemaVersion) {
      fail(root["schema_version"],
           fmt::format("schema_version {} is not supported; this kbench reads version {}",
                       suite.schema_version, kSuiteSchemaVersion));
    }
    suite.name = require_string(root, "suite");
    if (root["defaults"]) read_settings(root["defaults"], suite.defaults);
    if (root["generate"]) suite.generate = read_generate_block(root["generate"], file_);
    std::vector<std::string> default_patterns;
    if (root["candidates"]) default_patterns = as_string_list(root["candidates"]);

    const YAML::Node problems = root["problems"];
    if (!problems) fail(root, "missing `problems:` (a list of problems)");
    if (!problems.IsSequence() || problems.size() == 0)
      fail(problems, "`problems:` must be a non-empty list");
    std::set<std::string> ids;
    for (const auto& node : problems) {
      Problem problem = read_problem(node, suite.defaults, default_patterns, suite.generate.has_value());
      if (!ids.insert(problem.id).second)
        fail(node["id"], fmt::format("duplicate problem id '{}'", problem.id));
      suite.problems.push_back(std::move(problem));
    }
    return suite;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    fail_at(file_, node, what);
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                  const std::string& where) const {
    check_yaml_keys(file_, map, allowed, where);
  }

  template <typename T>
  T as(const YAML::Node& node, const char* type_name) const {
    return yaml_as<T>(file_, node, type_name);
  }
  // A mapping key as text; YAML also allows lists and mappings as keys (`[a]: 1`).
  std::string key_of(const YAML::Node& key) const {
    if (!key.IsScalar()) fail(key, "a key must be a plain name, not a list or a mapping");
    return key.Scalar();
  }

  // YAML keeps every key of a mapping, and lookups return the first: a second `suite:` or
  // `timeout_s:` would be silently ignored.
  void check_no_duplicate_keys(const YAML::Node& node) const {
    if (node.IsSequence()) {
      for (const auto& item : node) check_no_duplicate_keys(item);
      return;
    }
    if (!node.IsMap()) return;
    std::map<std::string, int> seen;  // key -> line
    for (const auto& item : node) {
      if (item.first.IsScalar()) {
        const auto [it, fresh] = seen.emplace(item.first.Scalar(), item.first.Mark().line + 1);
        if (!fresh)
          fail(item.first, fmt::format("duplicate key '{}' (first given on line {}); give each key once",
                                       item.first.Scalar(), it->second));
      }
      check_no_duplicate_keys(item.second);
    }
  }

  // A number: an unquoted scalar, finite and within its documented range (suite/number_range).
  double number(const YAML::Node& node, const char* key) const { return yaml_number(file_, node, key); }
  // The integer keys' ranges all fit an int.
  int integer(const YAML::Node& node, const char* key) const { return int(number(node, key)); }

  std::string require_string(const YAML::Node& map, const std::string& key) const {
    if (!map[key]) fail(map, fmt::format("missing `{}:`", key));
    const auto value = as<std::string>(map[key], "a string");
    if (value.empty()) fail(map[key], fmt::format("`{}:` must not be empty", key));
    return value;
  }

  std::vector<std::string> as_string_list(const YAML::Node& node) const {
    if (node.IsScalar()) return {node.as<std::string>()};
    if (!node.IsSequence()) fail(node, "expected a string or a list of strings");
    std::vector<std::string> out;
    for (const auto& item : node) out.push_back(as<std::string>(item, "a string"));
    return out;
  }

  void read_settings(const YAML::Node& node, EvalSettings& settings) const {
    if (!node.IsMap()) fail(node, "expected a mapping of evaluation settings");
    check_keys(node, eval_setting_keys(), "evaluation settings");
    if (node["dtype"]) {
      settings.dtype = as<std::string>(node["dtype"], "a dtype name");
      if (!is_known_dtype(settings.dtype))
        fail(node["dtype"], fmt::format("unknown dtype '{}'; use one of: {}", settings.dtype,
                                        join(known_dtypes(), ", ")));
    }
    for (const char* key : {"atol", "rtol"}) {
      if (!node[key]) continue;
      (std::string(key) == "atol" ? settings.atol : settings.rtol) = number(node[key], key);
    }
    if (node["seeds"]) settings.seeds = integer(node["seeds"], "seeds");
    if (node["timing"]) read_timing(node["timing"], settings.timing);
    if (node["inductor_mode"])
      settings.inductor_mode = as<std::string>(node["inductor_mode"], "a torch.compile mode");
    if (node["timeout_s"]) settings.timeout_s = number(node["timeout_s"], "timeout_s");
    for (const char* key : {"compile_timeout_s", "run_timeout_s", "memory_limit_gb"}) {
      if (!node[key]) continue;
      const double value = number(node[key], key);
      const std::string name = key;
      (name == "compile_timeout_s" ? settings.compile_timeout_s
       : name == "run_timeout_s"   ? settings.run_timeout_s
                                   : settings.memory_limit_gb) = value;
    }
    if (node["build_timeout_s"]) settings.build_timeout_s = number(node["build_timeout_s"], "build_timeout_s");
    for (const char* key : {"output_cap_mb", "file_size_limit_gb"}) {
      if (!node[key]) continue;
      const double value = number(node[key], key);
      (std::string(key) == "output_cap_mb" ? settings.output_cap_mb : settings.file_size_limit_gb) =
          value;
    }
    read_integrity_settings(node, settings);
    if (node["baselines"]) {
      settings.baselines = as_string_list(node["baselines"]);
      for (std::size_t i = 0; i < settings.baselines.size(); ++i) {
        const auto& name = settings.baselines[i];
        const auto& known = baseline_names();
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        const auto hint = closest_match(name, known);
        fail(node["baselines"].IsSequence() ? node["baselines"][i] : node["baselines"],
             fmt::format("unknown baseline '{}'{}; use: {}", name,
                         hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                         join(known, ", ")));
      }
    }
  }

  // The integrity keys (docs/integrity.md).
  void read_integrity_settings(const YAML::Node& node, EvalSettings& settings) const {
    if (node["checks"]) {
      const auto name = as<std::string>(node["checks"], "a check level");
      const auto level = check_level_from_string(name);
      if (!level)
        fail(node["checks"], fmt::format("unknown check level '{}'; use one of: {}", name,
                                         join(check_level_names(), ", ")));
      settings.checks = *level;
    }
    if (node["require_custom_kernel"])
      settings.require_custom_kernel = as<bool>(node["require_custom_kernel"], "true or false");
    if (node["min_custom_kernel_share"]) {
      settings.min_custom_kernel_share =
          number(node["min_custom_kernel_share"], "min_custom_kernel_share");
    }
    if (node["flag_speedup_above"])
      settings.flag_speedup_above = number(node["flag_speedup_above"], "flag_speedup_above");
    if (node["alt_inputs"]) {
      const auto value = as<std::string>(node["alt_inputs"], "`auto` or `none`");
      if (value != "auto" && value != "none")
        fail(node["alt_inputs"], fmt::format("`alt_inputs` is `auto` (a second input distribution, "
                                             "or the problem's get_inputs_alt()) or `none`, got '{}'",
                                             value));
      settings.alt_inputs = value == "auto";
    }
    if (node["skip_checks"]) {
      std::vector<std::string> known;
      for (const auto& check : integrity_checks()) known.push_back(check.name);
      settings.skip_checks = as_string_list(node["skip_checks"]);
      for (std::size_t i = 0; i < settings.skip_checks.size(); ++i) {
        const auto& name = settings.skip_checks[i];
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        const auto hint = closest_match(name, known);
        fail(node["skip_checks"][i],
             fmt::format("unknown check '{}' in skip_checks{}; checks: {}", name,
                         hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                         join(known, ", ")));
      }
    }
  }

  TimingPreset read_preset(const YAML::Node& node) const {
    const auto name = as<std::string>(node, "a timing preset");
    const auto preset = timing_preset_from_string(name);
    if (!preset) {
      const auto hint = closest_match(name, timing_preset_names());
      fail(node, fmt::format("unknown timing preset '{}'{}; use one of: {}", name,
                             hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                             join(timing_preset_names(), ", ")));
    }
    return *preset;
  }

  void read_timing(const YAML::Node& node, TimingConfig& timing) const {
    // `timing: rl` is short for `timing: {preset: rl}`.
    if (node.IsScalar()) {
      timing.preset = read_preset(node);
      return;
    }
    if (!node.IsMap())
      fail(node, "`timing:` must be a preset name (full, rl) or a mapping (see docs/suite-format.md)");
    check_keys(node, timing_keys(), "timing");
    if (node["preset"]) timing.preset = read_preset(node["preset"]);
    if (node["mode"]) {
      const auto name = as<std::string>(node["mode"], "a timing mode");
      const auto mode = timing_mode_from_string(name);
      if (!mode) {
        const auto hint = closest_match(name, timing_mode_names());
        fail(node["mode"], fmt::format("unknown timing mode '{}'{}; use one of: {}", name,
                                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                       join(timing_mode_names(), ", ")));
      }
      timing.mode = *mode;
    }
    // target_ci is a relative half-width, e.g. 0.005 for +-0.5%.
    if (node["target_ci"]) timing.target_ci = number(node["target_ci"], "target_ci");
    for (const auto& [key, out] : {std::pair{"min_time_s", &timing.min_time_s},
                                   std::pair{"max_time_s", &timing.max_time_s},
                                   std::pair{"warmup_time_s", &timing.warmup_time_s}})
      if (node[key]) *out = number(node[key], key);
    if (node["min_samples"]) timing.min_samples = integer(node["min_samples"], "min_samples");
    if (node["max_samples"]) timing.max_samples = integer(node["max_samples"], "max_samples");
    if (node["warmup"]) timing.warmup = integer(node["warmup"], "warmup");
    if (node["samples_per_round"])
      timing.samples_per_round = integer(node["samples_per_round"], "samples_per_round");
    if (node["input_sets"]) timing.input_sets = integer(node["input_sets"], "input_sets");
  }

  Problem read_problem(const YAML::Node& node, const EvalSettings& defaults,
                       const std::vector<std::string>& default_patterns, bool generated) const {
    if (!node.IsMap()) fail(node, "each problem must be a mapping with at least `id:` and `file:`");
    check_keys(node, kProblemKeys, "problem");
    Problem problem;
    const auto mark = node.Mark();
    problem.where = {file_.string(), mark.line + 1, mark.column + 1};
    problem.id = require_string(node, "id");
    const auto relative = require_string(node, "file");
    problem.file = (file_.parent_path() / relative).lexically_normal();
    problem.file = std::filesystem::absolute(problem.file);
    if (std::filesystem::is_directory(problem.file))
      fail(node["file"], fmt::format("problem file '{}' is a directory; name the problem's .py file",
                                     problem.file.string()));
    if (!std::filesystem::is_regular_file(problem.file))
      fail(node["file"], fmt::format("problem file '{}' not found (paths are relative to the "
                                     "suite file's folder)",
                                     problem.file.string()));
    if (node["level"]) problem.level = integer(node["level"], "level");
    if (node["tags"]) problem.tags = as_string_list(node["tags"]);
    if (node["sizes"]) read_sizes(node["sizes"], problem.sizes);
    if (node["alt_sizes"]) read_sizes(node["alt_sizes"], problem.alt_sizes);
    problem.candidate_patterns =
        node["candidates"] ? as_string_list(node["candidates"]) : default_patterns;
    if (problem.candidate_patterns.empty() && !generated)
      fail(node, fmt::format("problem '{}' has no candidates: add `candidates:` to it or to the "
                             "suite, or a `generate:` block",
                             problem.id));
    read_degenerate(node, problem);
    problem.settings = defaults;
    if (node["overrides"]) read_settings(node["overrides"], problem.settings);
    return problem;
  }

  // `degenerate: true` needs a `degenerate_reason:` that the reports can show.
  void read_degenerate(const YAML::Node& node, Problem& problem) const {
    const bool degenerate = node["degenerate"] && as<bool>(node["degenerate"], "true or false");
    if (!degenerate) {
      if (node["degenerate_reason"])
        fail(node["degenerate_reason"], "`degenerate_reason:` without `degenerate: true`; add "
                                        "`degenerate: true` or remove the reason");
      return;
    }
    if (!node["degenerate_reason"])
      fail(node["degenerate"], fmt::format("problem '{}' is `degenerate: true` without a "
                                           "`degenerate_reason:`; say why (e.g. \"zeros pass it\")",
                                           problem.id));
    problem.degenerate_reason = require_string(node, "degenerate_reason");
  }

  void read_sizes(const YAML::Node& node, std::map<std::string, nlohmann::json>& sizes) const {
    if (!node.IsMap()) fail(node, "`sizes:` and `alt_sizes:` map a device kind (cpu, cuda) to constants");
    check_keys(node, device_kind_names(), "sizes");
    for (const auto& item : node) {
      const auto kind = key_of(item.first);
      if (!item.second.IsMap()) fail(item.second, "expected a mapping CONSTANT: value");
      nlohmann::json constants = nlohmann::json::object();
      for (const auto& constant : item.second) {
        const auto name = key_of(constant.first);
        const auto& value = constant.second;
        if (!value.IsScalar() || value.Tag() == "!") fail(value, "size constants must be numbers");
        if (const auto as_integer = yaml_scalar_integer(value.Scalar())) {
          constants[name] = *as_integer;
        } else if (yaml_scalar_number(value.Scalar())) {
          constants[name] = number(value, "size constant");
        } else {
          fail(value, fmt::format("size constant '{}' must be a number", name));
        }
      }
      sizes[kind] = constants;
    }
  }

  std::filesystem::path file_;
};

}  // namespace

Suite load_suite(const std::filesystem::path& yaml_file) {
  try {
    return SuiteParser(yaml_file).parse();
  } catch (const YAML::Exception& e) {
    // A conversion the parser did not foresee is still bad input, with its position.
    throw InputError(fmt::format("{}:{}:{}: {}", yaml_file.string(), e.mark.line + 1, e.mark.column + 1,
                                 e.msg));
  }
}

}  // namespace kbench
