#include "run/generation_request.hpp"

#include <cstdlib>

namespace kbench {

std::filesystem::path default_generation_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "kbench" / "generations.sqlite";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/tmp") / ".cache" / "kbench" / "generations.sqlite";
}

}  // namespace kbench
