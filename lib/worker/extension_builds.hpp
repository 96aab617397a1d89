#pragma once
// The extension builds of one job (docs/extensions.md). Right before the candidate's import
// (nothing of the candidate has run), the worker builds the candidate's statically known
// `load_inline` extensions into its job dir without loading them, announces each with its hash
// on the result channel (the controller may publish it into the shared cache), and installs
// kbench's `load_inline`: it loads a hash-verified copy from the cache or the prebuild, and
// builds privately on a miss. Every build gets only the job GPU's architecture and MAX_JOBS of
// the worker's CPU share.
#include <nlohmann/json.hpp>

#include "model/job.hpp"

namespace kbench {

// Called once, right before the candidate's import; the last thing it writes on the result
// channel is the "import" phase line. Never throws for a candidate's fault: a build that fails
// is raised again at the candidate's own load_inline call.
void prepare_extension_builds(const Job& job);

// diagnostics.extension_build: one record per prebuild and per load_inline call the candidate
// made ({phase, name, key, hit, source, build_s, ...}); null when there were none. The records
// of the candidate's calls are written while it runs, so they are diagnostics, not evidence.
nlohmann::json extension_build_report();

}  // namespace kbench
