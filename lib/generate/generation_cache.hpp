#pragma once
// Replies already received, in SQLite, one row per sample, keyed by sample_cache_key(): a re-run
// asks the endpoint nothing it already answered, and a run killed mid-generation resumes from the
// last stored sample. Rows hold the request body and the reply; never the API key.
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/token_usage.hpp"

struct sqlite3;

namespace kbench {

struct CachedSample {
  std::string content;
  std::string finish_reason;
  std::string model;       // as the server named it
  std::string request;     // key of the request that produced it (shared by its n choices)
  int choices_in_request = 1;
  TokenUsage usage;        // of the whole request
  nlohmann::json reply;    // the whole reply body
};

class GenerationCache {
 public:
  // Opens (creating folder and file) `file`. Throws EnvironmentError when SQLite cannot.
  explicit GenerationCache(const std::filesystem::path& file);
  ~GenerationCache();
  GenerationCache(const GenerationCache&) = delete;
  GenerationCache& operator=(const GenerationCache&) = delete;

  std::optional<CachedSample> find(const std::string& key) const;
  // Committed before it returns (a kill right after loses nothing).
  void store(const std::string& key, const nlohmann::json& request_body, const CachedSample& sample);

 private:
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;  // one connection shared by the request threads
};

}  // namespace kbench
