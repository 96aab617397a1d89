#include "generate/generation_cache.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <memory>

#include "core/error.hpp"

namespace kbench {
namespace {

using Statement = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS samples (
  key TEXT PRIMARY KEY,
  request_body TEXT NOT NULL,
  content TEXT NOT NULL,
  finish_reason TEXT NOT NULL,
  model TEXT NOT NULL,
  request TEXT NOT NULL,
  choices_in_request INTEGER NOT NULL,
  usage TEXT NOT NULL,
  reply TEXT NOT NULL,
  created_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);)sql";

std::string text_column(sqlite3_stmt* statement, int column) {
  const auto* text = sqlite3_column_text(statement, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}

}  // namespace

GenerationCache::GenerationCache(const std::filesystem::path& file) : file_(file) {
  std::error_code ignored;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ignored);
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw EnvironmentError(fmt::format("{}: cannot open the generation cache: {} (choose another "
                                       "with --generate-cache FILE)", file.string(), why));
  }
  sqlite3_busy_timeout(db_, 10000);  // two runs sharing one cache wait for each other
  char* error = nullptr;
  // WAL: readers do not block the writer; synchronous=NORMAL in WAL mode still survives a
  // process kill (only a power loss can drop the last commits).
  if (sqlite3_exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr, &error) != SQLITE_OK ||
      sqlite3_exec(db_, kSchema, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    sqlite3_close(db_);
    db_ = nullptr;
    throw EnvironmentError(fmt::format("{}: not a usable generation cache: {}", file.string(), why));
  }
}

GenerationCache::~GenerationCache() {
  if (db_) sqlite3_close(db_);
}

std::optional<CachedSample> GenerationCache::find(const std::string& key) const {
  std::lock_guard lock(mutex_);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT content, finish_reason, model, request, choices_in_request, usage, reply "
                         "FROM samples WHERE key = ?1",
                         -1, &raw, nullptr) != SQLITE_OK)
    throw EnvironmentError(fmt::format("{}: {}", file_.string(), sqlite3_errmsg(db_)));
  Statement statement(raw, sqlite3_finalize);
  sqlite3_bind_text(raw, 1, key.c_str(), int(key.size()), SQLITE_TRANSIENT);
  const int rc = sqlite3_step(raw);
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) throw EnvironmentError(fmt::format("{}: {}", file_.string(), sqlite3_errmsg(db_)));
  CachedSample sample;
  sample.content = text_column(raw, 0);
  sample.finish_reason = text_column(raw, 1);
  sample.model = text_column(raw, 2);
  sample.request = text_column(raw, 3);
  sample.choices_in_request = sqlite3_column_int(raw, 4);
  sample.usage = token_usage_from_json(nlohmann::json::parse(text_column(raw, 5), nullptr, false));
  sample.reply = nlohmann::json::parse(text_column(raw, 6), nullptr, false);
  return sample;
}

void GenerationCache::store(const std::string& key, const nlohmann::json& request_body,
                            const CachedSample& sample) {
  std::lock_guard lock(mutex_);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO samples (key, request_body, content, finish_reason, "
                         "model, request, choices_in_request, usage, reply) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                         -1, &raw, nullptr) != SQLITE_OK)
    throw EnvironmentError(fmt::format("{}: {}", file_.string(), sqlite3_errmsg(db_)));
  Statement statement(raw, sqlite3_finalize);
  const std::string texts[] = {key,           request_body.dump(), sample.content,
                               sample.finish_reason, sample.model, sample.request};
  for (int i = 0; i < 6; ++i)
    sqlite3_bind_text(raw, i + 1, texts[i].c_str(), int(texts[i].size()), SQLITE_TRANSIENT);
  sqlite3_bind_int(raw, 7, sample.choices_in_request);
  const std::string usage = to_json(sample.usage).dump(), reply = sample.reply.dump();
  sqlite3_bind_text(raw, 8, usage.c_str(), int(usage.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(raw, 9, reply.c_str(), int(reply.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(raw) != SQLITE_DONE)
    throw EnvironmentError(fmt::format("{}: cannot store a reply: {}", file_.string(), sqlite3_errmsg(db_)));
}

}  // namespace kbench
