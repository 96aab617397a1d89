#pragma once
// The files a generated candidate leaves beside the results (docs/endpoints.md#files), for every
// turn alike:
//   <output_dir>/<problem>/sample-<k>-turn-<t>.py          the candidate (absent: no code)
//   <output_dir>/<problem>/sample-<k>-turn-<t>.reply.json  the reply, its usage and extraction
#include <filesystem>
#include <string>

#include "model/candidate_origin.hpp"
#include "generate/generation_cache.hpp"
#include "generate/price_table.hpp"

namespace kbench {

// Extracts the code of `sample` and writes both files atomically; the candidate as the run
// plans it. `prices` may be null.
GeneratedCandidate save_generated(const std::filesystem::path& output_dir, const std::string& problem_id,
                                  int sample_index, int turn, const CachedSample& sample, bool from_cache,
                                  const PriceTable* prices, const std::string& model);

// Temp file + rename. Throws EnvironmentError when it cannot be written.
void write_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace kbench
