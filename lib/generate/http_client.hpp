#pragma once
// One HTTP POST over libcurl, with connect and whole-request timeouts. No retries here (that is
// ChatClient's business): this reports what happened, transport failures included.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbench {

struct HttpResponse {
  long status = 0;            // 0 when no HTTP response arrived
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
  int transport_error = 0;    // CURLcode; 0 when a response arrived
  std::string transport_message;  // curl's text for transport_error
  bool timed_out = false;
  bool cancelled = false;  // `cancelled` returned true (Ctrl-C) and the transfer was dropped
};

struct HttpTimeouts {
  double connect_s = 10;
  double request_s = 600;
};

// POSTs `body` as application/json to `url` with `headers` ("Name: value"). Thread-safe.
// `cancelled` (may be empty) is polled during the transfer; true aborts it.
HttpResponse http_post_json(const std::string& url, const std::string& body,
                            const std::vector<std::string>& headers, const HttpTimeouts& timeouts,
                            const std::function<bool()>& cancelled = {});

}  // namespace kbench
