// HistoryStore on an SQLite file (libsqlite3): the default, nothing to run beside kbench.
#include <fmt/format.h>
#include <sqlite3.h>

#include "core/error.hpp"
#include "history/history_backends.hpp"

namespace kbench {
namespace {

class SqliteHistoryStore final : public HistoryStore {
 public:
  SqliteHistoryStore(const std::filesystem::path& file, const std::string& url) : HistoryStore(url) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw InputError(fmt::format("--db {}: cannot open it as an SQLite file ({})", url, why));
    }
    // Two nightly jobs adding at once wait for each other instead of failing.
    sqlite3_busy_timeout(db_, 30000);
    query("PRAGMA foreign_keys = ON", {});
    create_schema();
  }
  ~SqliteHistoryStore() override { sqlite3_close(db_); }

 protected:
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &statement, nullptr) != SQLITE_OK)
      fail(sql);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{statement};
    if (sqlite3_bind_parameter_count(statement) != int(params.size()))
      throw Error(kExitInternal, fmt::format("history SQL: {} parameters given for: {}", params.size(), sql));
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int rc = params[i] ? sqlite3_bind_text(statement, int(i + 1), params[i]->data(),
                                                   int(params[i]->size()), SQLITE_TRANSIENT)
                               : sqlite3_bind_null(statement, int(i + 1));
      if (rc != SQLITE_OK) fail(sql);
    }
    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(statement);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(sql);
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(statement); ++c) {
        const auto* value = sqlite3_column_text(statement, c);
        if (value) row.emplace_back(std::string(reinterpret_cast<const char*>(value)));
        else row.emplace_back(std::nullopt);
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  [[noreturn]] void fail(const std::string& sql) {
    throw EnvironmentError(fmt::format("history {}: SQLite: {} (in: {})", url(), sqlite3_errmsg(db_),
                                       sql.substr(0, 60)));
  }
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryStore> open_sqlite_history(const std::filesystem::path& file, const std::string& url) {
  return std::make_unique<SqliteHistoryStore>(file, url);
}

}  // namespace kbench
