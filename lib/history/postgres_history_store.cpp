// HistoryStore on a PostgreSQL server (libpq): for a history shared by several CI runners.
#include <fmt/format.h>
#include <libpq-fe.h>

#include "core/error.hpp"
#include "history/history_backends.hpp"

namespace kbench {
namespace {

// The URL without its password, for messages.
std::string redacted(const std::string& url) {
  const auto scheme = url.find("://");
  const auto at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

class PostgresHistoryStore final : public HistoryStore {
 public:
  explicit PostgresHistoryStore(const std::string& url) : HistoryStore(redacted(url)) {
    connection_ = PQconnectdb(url.c_str());
    if (!connection_ || PQstatus(connection_) != CONNECTION_OK) {
      const std::string why = connection_ ? PQerrorMessage(connection_) : "out of memory";
      PQfinish(connection_);
      throw EnvironmentError(fmt::format("--db {}: cannot connect to PostgreSQL: {}", this->url(), why));
    }
    // "relation already exists, skipping" from CREATE ... IF NOT EXISTS is not news.
    PQsetNoticeProcessor(connection_, [](void*, const char*) {}, nullptr);
    create_schema();
  }
  ~PostgresHistoryStore() override { PQfinish(connection_); }

 protected:
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* result = PQexecParams(connection_, sql.c_str(), int(values.size()), nullptr, values.data(),
                                    nullptr, nullptr, 0);
    struct Clear {
      PGresult* r;
      ~Clear() { PQclear(r); }
    } clear{result};
    const auto status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      throw EnvironmentError(fmt::format("history {}: PostgreSQL: {} (in: {})", url(),
                                         PQresultErrorMessage(result), sql.substr(0, 60)));
    std::vector<SqlRow> rows;
    for (int r = 0; r < PQntuples(result); ++r) {
      SqlRow row;
      for (int c = 0; c < PQnfields(result); ++c) {
        if (PQgetisnull(result, r, c)) row.emplace_back(std::nullopt);
        else row.emplace_back(std::string(PQgetvalue(result, r, c), std::size_t(PQgetlength(result, r, c))));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  PGconn* connection_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryStore> open_postgres_history(const std::string& url) {
  return std::make_unique<PostgresHistoryStore>(url);
}

}  // namespace kbench
