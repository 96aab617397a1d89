#include "serve/http_auth.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cctype>
#include <fstream>

#include "core/error.hpp"

namespace kbench {
namespace {

constexpr std::size_t kMinTokenLength = 16;

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Compares every byte whatever the first difference; only the length leaks, which a token of a
// documented minimum length makes harmless.
bool equal_in_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string read_token_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw InputError(fmt::format("--token-file {}: cannot be read; write the bearer token (at least {} "
                                 "characters) into it, e.g. `openssl rand -hex 32 > {}`",
                                 path.string(), kMinTokenLength, path.string()));
  }
  std::string line;
  std::getline(in, line);
  const std::string_view token = trimmed(line);
  for (const char c : token) {
    if (std::isspace(static_cast<unsigned char>(c)) || !std::isprint(static_cast<unsigned char>(c)))
      throw InputError(fmt::format("--token-file {}:1: the token holds a blank or a control character; "
                                   "use printable characters only (e.g. `openssl rand -hex 32`)",
                                   path.string()));
  }
  if (token.size() < kMinTokenLength) {
    throw InputError(fmt::format("--token-file {}:1: the token has {} characters, fewer than {}; "
                                 "use e.g. `openssl rand -hex 32 > {}`",
                                 path.string(), token.size(), kMinTokenLength, path.string()));
  }
  return std::string(token);
}

void require_token_for_bind(const std::string& host, const std::optional<std::string>& token) {
  if (token || is_loopback_host(host)) return;
  throw InputError(fmt::format("--host {} is reachable from other machines: pass --token-file FILE "
                               "(a bearer token every request must carry), or bind 127.0.0.1",
                               host));
}

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size()) return false;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return false;
  return equal_in_constant_time(trimmed(authorization.substr(kScheme.size())), token);
}

}  // namespace kbench
