#include "worker/extension_builds.hpp"

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "extension_builds_source.hpp"  // generated: kExtensionBuildsSource
#include "cache/extension_cache.hpp"
#include "exec/result_channel.hpp"
#include "worker/phase_signal.hpp"
#include "worker/python_runtime.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// Kept for the worker's lifetime (it _exits without finalising Python).
py::object* g_builds = nullptr;
nlohmann::json g_setup_error;

std::string env_or(const char* name, const char* otherwise) {
  const char* value = std::getenv(name);
  return value ? value : otherwise;
}

}  // namespace

void prepare_extension_builds(const Job& job) {
  try {
    std::ifstream in(job.candidate_file, std::ios::binary);
    const std::string source{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    // A private namespace, never in sys.modules: candidate code cannot find it by name.
    py::dict scope;
    scope["__builtins__"] = py::module_::import("builtins");
    scope["__name__"] = "kbench_extension_builds";
    py::exec(kExtensionBuildsSource, scope);
    py::cpp_function announce([](const std::string& phase) { announce_phase(phase); });
    const std::string cache = env_or("KBENCH_EXTENSION_CACHE", "");
    py::object builds = scope["install"](
        py::module_::import("torch"), to_string(job.device), std::atoi(env_or("KBENCH_BUILD_JOBS", "1").c_str()),
        (std::filesystem::current_path() / kJobExtensionsDir).string(), cache.empty() ? py::object(py::none()) : py::str(cache),
        env_or("KBENCH_EXTENSION_CACHE_OFF", "the shared extension cache is off"), announce,
        py::bytes(source));
    if (!builds.is_none()) g_builds = new py::object(std::move(builds));
  } catch (const py::error_already_set& e) {
    // kbench's own fault (e.g. a torch without the build step it uses): candidates still build
    // through torch's load_inline, as before.
    g_setup_error = describe_python_error(e, 2000);
  }
  announce_phase(std::string(kImportPhase));
}

nlohmann::json extension_build_report() {
  if (!g_setup_error.is_null()) return {{"error", g_setup_error}};
  if (!g_builds) return nullptr;
  try {
    auto records = nlohmann::json::parse(g_builds->attr("report")().cast<std::string>());
    if (!records.is_array() || records.empty()) return nullptr;
    return records;
  } catch (const std::exception& e) {  // candidate code may have broken the records
    return {{"error", std::string("unreadable build records: ") + e.what()}};
  }
}

}  // namespace kbench
