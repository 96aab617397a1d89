#pragma once
// Who may talk to `kbench serve` (docs/serve.md#auth). On the loopback any local process may;
// anywhere else a bearer token is required, read from a file (never a command-line argument,
// which every user of the machine can read in /proc), and the server refuses to start without
// one. The token is compared in constant time, so response timing does not reveal its prefix.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kbench {

// True for addresses only this machine can reach: 127.0.0.0/8, ::1, "localhost".
// 0.0.0.0, ::, host names and every other address are not.
bool is_loopback_host(const std::string& host);

// The token in `path`: its first line without surrounding blanks. InputError (exit 2) when the
// file is missing or unreadable, or the token is shorter than 16 characters or holds a blank.
std::string read_token_file(const std::filesystem::path& path);

// Throws InputError naming --token-file when `host` is not loopback and no token is set.
void require_token_for_bind(const std::string& host, const std::optional<std::string>& token);

// Whether an `Authorization` header value is "Bearer <token>" (scheme case-insensitive).
bool bearer_token_matches(std::string_view authorization, std::string_view token);

}  // namespace kbench
