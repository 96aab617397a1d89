#include "service/candidate_store.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "core/error.hpp"
#include "core/hmac_sha256.hpp"

namespace kbench {

CandidateStore::CandidateStore(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error)
    throw EnvironmentError(fmt::format("{}: cannot create the candidate folder: {}", dir_.string(), error.message()));
}

std::filesystem::path CandidateStore::put(const std::string& source) const {
  const auto file = dir_ / (to_hex(sha256(source)) + ".py");
  if (std::filesystem::exists(file)) return file;  // same name, same bytes
  // Written beside, then renamed: a reader never sees half a file.
  const auto partial = dir_ / fmt::format(".{}.{}.partial", file.filename().string(), ::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(source.data(), std::streamsize(source.size()));
    out.close();
    if (!out) throw EnvironmentError(fmt::format("{}: cannot write a candidate file", partial.string()));
  }
  std::error_code error;
  std::filesystem::rename(partial, file, error);
  if (error) throw EnvironmentError(fmt::format("{}: cannot write a candidate file: {}", file.string(), error.message()));
  return file;
}

}  // namespace kbench
