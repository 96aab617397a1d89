// load_suite(): YAML -> Suite, with every error pointing at file:line:col.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/suite.hpp"
#include "suite/tolerance.hpp"
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
                                                "compile_timeout_s", "run_timeout_s",
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
                                               "candidates", "overrides", "description"};
const std::vector<std::string> kDeviceKinds = {"cpu", "cuda"};

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
    check_keys(root, kTopKeys, "suite");

    Suite suite;
    suite.file = std::filesystem::absolute(file_).lexically_normal();
    suite.schema_version = root["schema_version"] ? as_int(root["schema_version"]) : 1;
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
  int as_int(const YAML::Node& node) const { return as<int>(node, "an integer"); }
  double as_double(const YAML::Node& node) const { return as<double>(node, "a number"); }

  int as_int_at_least(const YAML::Node& map, const char* key, int minimum) const {
    const YAML::Node node = map[key];
    const int value = as_int(node);
    if (value < minimum) fail(node, fmt::format("`{}` must be >= {}, got {}", key, minimum, value));
    return value;
  }

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
      const double value = as_double(node[key]);
      if (!(value >= 0)) fail(node[key], fmt::format("`{}` must be >= 0", key));
      (std::string(key) == "atol" ? settings.atol : settings.rtol) = value;
    }
    if (node["seeds"]) settings.seeds = as_int_at_least(node, "seeds", 1);
    if (node["timing"]) read_timing(node["timing"], settings.timing);
    if (node["inductor_mode"])
      settings.inductor_mode = as<std::string>(node["inductor_mode"], "a torch.compile mode");
    if (node["timeout_s"]) {
      settings.timeout_s = as_double(node["timeout_s"]);
      if (!(settings.timeout_s > 0)) fail(node["timeout_s"], "`timeout_s` must be > 0");
    }
    for (const char* key : {"compile_timeout_s", "run_timeout_s", "memory_limit_gb"}) {
      if (!node[key]) continue;
      const double value = as_double(node[key]);
      if (!(value > 0)) fail(node[key], fmt::format("`{}` must be > 0", key));
      const std::string name = key;
      (name == "compile_timeout_s" ? settings.compile_timeout_s
       : name == "run_timeout_s"   ? settings.run_timeout_s
                                   : settings.memory_limit_gb) = value;
    }
    for (const char* key : {"output_cap_mb", "file_size_limit_gb"}) {
      if (!node[key]) continue;
      const double value = as_double(node[key]);
      if (!(value > 0)) fail(node[key], fmt::format("`{}` must be > 0", key));
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
      settings.min_custom_kernel_share = as_double(node["min_custom_kernel_share"]);
      if (!(settings.min_custom_kernel_share >= 0 && settings.min_custom_kernel_share <= 1))
        fail(node["min_custom_kernel_share"], "`min_custom_kernel_share` is a fraction in [0, 1]");
    }
    if (node["flag_speedup_above"]) {
      settings.flag_speedup_above = as_double(node["flag_speedup_above"]);
      if (!(settings.flag_speedup_above > 1))
        fail(node["flag_speedup_above"], "`flag_speedup_above` must be > 1 (a speedup factor)");
    }
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

  void read_timing(const YAML::Node& node, TimingConfig& timing) const {
    if (!node.IsMap()) fail(node, "`timing:` must be a mapping (see docs/suite-format.md)");
    check_keys(node, timing_keys(), "timing");
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
    if (node["target_ci"]) {
      timing.target_ci = as_double(node["target_ci"]);
      if (!(timing.target_ci > 0 && timing.target_ci < 1))
        fail(node["target_ci"], "`target_ci` is a relative half-width, e.g. 0.005 for +-0.5%");
    }
    auto positive_seconds = [&](const char* key, std::optional<double>& out, bool allow_zero) {
      if (!node[key]) return;
      const double value = as_double(node[key]);
      if (!(value > 0 || (allow_zero && value == 0)))
        fail(node[key], fmt::format("`{}` must be {} seconds", key, allow_zero ? ">= 0" : "> 0"));
      out = value;
    };
    positive_seconds("min_time_s", timing.min_time_s, true);
    positive_seconds("max_time_s", timing.max_time_s, false);
    positive_seconds("warmup_time_s", timing.warmup_time_s, true);
    if (node["min_samples"]) timing.min_samples = as_int_at_least(node, "min_samples", 1);
    if (node["max_samples"]) timing.max_samples = as_int_at_least(node, "max_samples", 1);
    if (node["warmup"]) timing.warmup = as_int_at_least(node, "warmup", 0);
    if (node["samples_per_round"])
      timing.samples_per_round = as_int_at_least(node, "samples_per_round", 1);
    if (node["input_sets"]) timing.input_sets = as_int_at_least(node, "input_sets", 1);
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
    if (!std::filesystem::is_regular_file(problem.file))
      fail(node["file"], fmt::format("problem file '{}' not found (paths are relative to the "
                                     "suite file's folder)",
                                     problem.file.string()));
    if (node["level"]) problem.level = as_int_at_least(node, "level", 1);
    if (node["tags"]) problem.tags = as_string_list(node["tags"]);
    if (node["sizes"]) read_sizes(node["sizes"], problem.sizes);
    if (node["alt_sizes"]) read_sizes(node["alt_sizes"], problem.alt_sizes);
    problem.candidate_patterns =
        node["candidates"] ? as_string_list(node["candidates"]) : default_patterns;
    if (problem.candidate_patterns.empty() && !generated)
      fail(node, fmt::format("problem '{}' has no candidates: add `candidates:` to it or to the "
                             "suite, or a `generate:` block",
                             problem.id));
    problem.settings = defaults;
    if (node["overrides"]) read_settings(node["overrides"], problem.settings);
    return problem;
  }

  void read_sizes(const YAML::Node& node, std::map<std::string, nlohmann::json>& sizes) const {
    if (!node.IsMap()) fail(node, "`sizes:` and `alt_sizes:` map a device kind (cpu, cuda) to constants");
    check_keys(node, kDeviceKinds, "sizes");
    for (const auto& item : node) {
      const auto kind = item.first.as<std::string>();
      if (!item.second.IsMap()) fail(item.second, "expected a mapping CONSTANT: value");
      nlohmann::json constants = nlohmann::json::object();
      for (const auto& constant : item.second) {
        const auto name = constant.first.as<std::string>();
        const auto& value = constant.second;
        if (!value.IsScalar()) fail(value, "size constants must be numbers");
        long long as_integer = 0;
        double as_real = 0;
        if (YAML::convert<long long>::decode(value, as_integer)) {
          constants[name] = as_integer;
        } else if (YAML::convert<double>::decode(value, as_real)) {
          constants[name] = as_real;
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

Suite load_suite(const std::filesystem::path& yaml_file) { return SuiteParser(yaml_file).parse(); }

}  // namespace kbench
