#pragma once
// The two implementations of HistoryStore; each is compiled only when its library was found
// (KBENCH_WITH_SQLITE, KBENCH_WITH_POSTGRES; lib/CMakeLists.txt).
#include <filesystem>
#include <memory>
#include <string>

#include "history/history_store.hpp"

namespace kbench {

std::unique_ptr<HistoryStore> open_sqlite_history(const std::filesystem::path& file, const std::string& url);
std::unique_ptr<HistoryStore> open_postgres_history(const std::string& url);

}  // namespace kbench
