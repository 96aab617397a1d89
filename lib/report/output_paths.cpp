#include "report/output_paths.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "core/error.hpp"

namespace kbench {
namespace fs = std::filesystem;
namespace {

fs::path identity(const fs::path& path) {
  std::error_code error;
  const auto canonical = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : canonical;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool same = fs::equivalent(a, b, error);
    if (!error) return same;
  }
  return identity(a) == identity(b);
}

}  // namespace

void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    if (out.path == "-") continue;
    std::error_code error;
    if (out.path.filename().empty() || fs::is_directory(out.path, error))
      throw InputError(fmt::format("{} {}: is a directory; name a file to write", out.role,
                                   out.path.string()));
    for (const auto& in : inputs)
      if (same_file(out.path, in.path))
        throw InputError(fmt::format("{} {}: is {} {}; it would be overwritten. Choose another "
                                     "output path",
                                     out.role, out.path.string(), in.role, in.path.string()));
    for (std::size_t j = 0; j < i; ++j)
      if (outputs[j].path != "-" && same_file(out.path, outputs[j].path))
        throw InputError(fmt::format("{} {}: is also the {} output; give each output its own file",
                                     out.role, out.path.string(), outputs[j].role));
  }
}

void check_work_dir(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir, error)) {
    if (!fs::is_directory(dir, error))
      throw InputError(fmt::format("--work-dir {}: exists and is not a directory", dir.string()));
    if (access(dir.c_str(), W_OK | X_OK) != 0)
      throw InputError(fmt::format("--work-dir {}: cannot write in this directory", dir.string()));
    return;
  }
  // The nearest ancestor that exists must be a real, writable directory; /proc and /sys only
  // look like one.
  auto ancestor = fs::absolute(dir).lexically_normal();
  while (!ancestor.empty() && !fs::exists(ancestor, error)) ancestor = ancestor.parent_path();
  const auto root = ancestor.root_path();
  const bool pseudo = ancestor != root && (*std::next(ancestor.begin()) == "proc" ||
                                            *std::next(ancestor.begin()) == "sys");
  if (!fs::is_directory(ancestor, error) || pseudo || access(ancestor.c_str(), W_OK | X_OK) != 0)
    throw InputError(fmt::format("--work-dir {}: cannot be created ({} is not a writable directory)",
                                 dir.string(), ancestor.string()));
}

}  // namespace kbench
