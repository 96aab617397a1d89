// `kbench prompt SUITE PROBLEM`: the exact first-turn prompt `kbench run` would send for a problem.
#include <fmt/format.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/controller.hpp"
#include "suite/suite.hpp"
#ifdef KBENCH_WITH_GENERATE
#include "generate/candidate_generator.hpp"
#include "generate/prompt_template.hpp"
#endif

namespace kbench::cli {

void add_prompt_command(CLI::App& app) {
  struct Options {
    std::string suite, problem, device = "auto";
    std::optional<std::string> backend;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("prompt", "Print the exact prompt `kbench run` sends a model for one problem");
  cmd->add_option("suite", options->suite, "Suite YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("problem", options->problem, "Problem id")->required();
  cmd->add_option("--backend", options->backend, "triton or cuda (default: the suite's generate.backend, else triton)")
      ->transform(CLI::IsMember({"triton", "cuda"}));
  cmd->add_option("--device", options->device,
                  "The device whose facts the prompt states: auto, cpu, cuda or cuda:N (default auto)");
  cmd->callback([options] {
#ifdef KBENCH_WITH_GENERATE
    const Suite suite = load_suite(options->suite);
    const auto problem = std::find_if(suite.problems.begin(), suite.problems.end(),
                                      [&](const Problem& p) { return p.id == options->problem; });
    if (problem == suite.problems.end()) {
      std::vector<std::string> ids;
      for (const auto& p : suite.problems) ids.push_back(p.id);
      const auto hint = closest_match(options->problem, ids);
      throw InputError(fmt::format("{}: no problem '{}'{}", options->suite, options->problem,
                                   hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
    GenerateSettings settings = suite.generate.value_or(GenerateSettings{});
    if (options->backend) settings.backend = *options->backend;
    const auto devices = resolve_devices(options->device);
    std::string pattern = (std::filesystem::temp_directory_path() / "kbench-prompt-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw EnvironmentError("cannot create a temporary directory");
    const std::filesystem::path work_dir = pattern;
    nlohmann::json environment;
    try {
      environment = probe_environment(devices.front(), work_dir);
    } catch (...) {
      std::filesystem::remove_all(work_dir);
      throw;
    }
    std::filesystem::remove_all(work_dir);
    const auto messages = first_turn_messages(*problem, settings, device_facts(environment, devices.front()));
    std::fputs(prompt_text(messages).c_str(), stdout);
#else
    throw EnvironmentError("this kbench was built without model-endpoint generation (libcurl and SQLite3 "
                           "development files; scripts/setup.sh)");
#endif
  });
}

}  // namespace kbench::cli
