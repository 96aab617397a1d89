#include "integrity/native_baseline.hpp"

#include <dlfcn.h>
#include <link.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace py = pybind11;

namespace kbench {
namespace {

std::string real_path(const std::string& path) {
  if (path.empty()) return "";
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

int add_object(struct dl_phdr_info* info, size_t, void* data) {
  auto* names = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name && info->dlpi_name[0]) names->emplace_back(info->dlpi_name);
  return 0;
}

std::string namespace_of(const std::string& op) { return op.substr(0, op.find("::")); }

}  // namespace

std::vector<std::string> loaded_objects() {
  std::vector<std::string> names;
  dl_iterate_phdr(&add_object, &names);
  return names;
}

std::string object_containing(const void* address) {
  Dl_info info{};
  if (!address || dladdr(address, &info) == 0 || !info.dli_fname) return "";
  return info.dli_fname;
}

NativeBaseline::NativeBaseline(std::set<std::string> objects, std::set<std::string> namespaces,
                               std::vector<std::string> install_dirs)
    : namespaces_(std::move(namespaces)), captured_(true) {
  for (const auto& o : objects) objects_.insert(real_path(o));
  for (auto d : install_dirs) {
    d = real_path(d);
    if (d.empty()) continue;
    if (d.back() != '/') d += '/';
    install_dirs_.push_back(d);
  }
}

NativeBaseline NativeBaseline::capture() {
  std::set<std::string> objects;
  for (const auto& name : loaded_objects()) objects.insert(name);
  objects.insert("/proc/self/exe");
  std::set<std::string> namespaces;
  std::vector<std::string> dirs;
  py::module_ sys = py::module_::import("sys");
  for (const char* prefix : {"prefix", "base_prefix", "exec_prefix", "base_exec_prefix"})
    dirs.push_back(py::str(sys.attr(prefix)).cast<std::string>());
  try {
    py::module_ site = py::module_::import("site");
    for (auto dir : site.attr("getsitepackages")()) dirs.push_back(py::str(dir).cast<std::string>());
    dirs.push_back(py::str(site.attr("getusersitepackages")()).cast<std::string>());
  } catch (const py::error_already_set&) {
    // A venv without site's helpers: the prefixes above still cover its site-packages.
  }
  try {
    py::module_ c = py::module_::import("torch._C");
    for (auto op : c.attr("_dispatch_get_all_op_names")()) namespaces.insert(namespace_of(py::str(op)));
  } catch (const py::error_already_set&) {
    // No torch: no operator a candidate could register either.
  }
  return NativeBaseline(std::move(objects), std::move(namespaces), std::move(dirs));
}

bool NativeBaseline::is_candidate_object(const std::string& path) const {
  if (!captured_ || path.empty()) return false;
  const std::string real = real_path(path);
  if (objects_.count(real)) return false;
  return std::none_of(install_dirs_.begin(), install_dirs_.end(),
                      [&](const std::string& dir) { return real.rfind(dir, 0) == 0; });
}

bool NativeBaseline::is_candidate_namespace(const std::string& ns) const {
  return captured_ && !ns.empty() && !namespaces_.count(ns);
}

std::vector<std::string> NativeBaseline::candidate_objects() const {
  std::set<std::string> found;
  for (const auto& name : loaded_objects())
    if (is_candidate_object(name)) found.insert(real_path(name));
  return {found.begin(), found.end()};
}

}  // namespace kbench
