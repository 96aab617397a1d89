#pragma once
// Where `run` and `validate` put their workers' files and GPU lock files.
#include <filesystem>
#include <string>

namespace kbench {

// A fresh folder `<tmp>/<prefix>-XXXXXX`; throws EnvironmentError when none can be made.
std::filesystem::path make_temp_work_dir(const std::string& prefix);

// $XDG_RUNTIME_DIR when it is a folder, else /tmp: where the per-GPU lock files live.
std::filesystem::path gpu_lock_dir();

}  // namespace kbench
