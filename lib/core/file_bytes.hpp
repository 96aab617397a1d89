#pragma once
// A whole file's bytes in one read: reference work, commitments and kept references run to GBs
// at full size, where reading through istreambuf_iterator (~400 MB/s) cost seconds per pass.
#include <filesystem>
#include <optional>
#include <string>

namespace kbench {

// The file's bytes; nullopt when it cannot be opened or read (errno says why).
std::optional<std::string> read_file_bytes(const std::filesystem::path& file);
// The same, or std::runtime_error "cannot read FILE: why".
std::string read_file(const std::filesystem::path& file);

}  // namespace kbench
