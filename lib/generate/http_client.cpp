#include "generate/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

namespace kbench {
namespace {

// curl_global_init is not thread-safe; do it once, before the first handle.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::size_t read_header(char* data, std::size_t size, std::size_t count, void* out) {
  const std::string line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t\r\n");
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * count;
}

int check_cancelled(void* data, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancelled = static_cast<const std::function<bool()>*>(data);
  return (*cancelled && (*cancelled)()) ? 1 : 0;
}

}  // namespace

HttpResponse http_post_json(const std::string& url, const std::string& body,
                            const std::vector<std::string>& headers, const HttpTimeouts& timeouts,
                            const std::function<bool()>& cancelled) {
  init_curl_once();
  HttpResponse response;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    response.transport_error = CURLE_FAILED_INIT;
    response.transport_message = "curl_easy_init failed";
    return response;
  }
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
  list = curl_slist_append(list, "Accept: application/json");
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(list, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(timeouts.connect_s * 1000));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, long(timeouts.request_s * 1000));
  // Threads: no signals for DNS timeouts (curl's documented advice for multi-threaded use).
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  if (cancelled) {
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, check_cancelled);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &cancelled);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  char error_text[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
  const CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    response.transport_error = int(code);
    response.transport_message = error_text[0] ? error_text : curl_easy_strerror(code);
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    response.cancelled = code == CURLE_ABORTED_BY_CALLBACK;
    response.status = 0;
    return response;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace kbench
