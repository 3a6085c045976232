// Keep-alive HTTP/1.1 client connections on one epoll loop, one request in
// flight per connection (what a pooled Python client such as httpx does).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "socket_set.hpp"
#include "target.hpp"

namespace bench {

struct HttpConn : SocketConn {
  bool connected = false;
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual void on_response(HttpConn& c, int status, std::string_view body) = 0;
  virtual void on_failed(HttpConn& c, const std::string& why) = 0;  // the connection is gone
};

class HttpClientPool {
 public:
  HttpClientPool(const Target& target, HttpHandler& handler, size_t capacity);
  ~HttpClientPool();
  HttpClientPool(const HttpClientPool&) = delete;
  HttpClientPool& operator=(const HttpClientPool&) = delete;

  HttpConn& conn(int id) { return conns_[size_t(id)]; }
  void open(int id);
  // Queues a POST of `body` (JSON) to the target path; stamps t_sent_ns.
  void post(HttpConn& c, std::string_view body);
  void poll(int timeout_ms);

 private:
  void on_events(HttpConn& c, uint32_t events);
  void parse_responses(HttpConn& c);
  void flush(HttpConn& c);
  void fail(HttpConn& c, const std::string& why);

  Target target_;
  HttpHandler& handler_;
  std::vector<HttpConn> conns_;
  SocketSet sockets_;
};

// Parses one response at the start of `buf`: returns its total length, 0 when
// incomplete, -1 when malformed. Handles Content-Length and chunked bodies.
long parse_http_response(const std::string& buf, int& status, std::string& body, bool& close_after);

}  // namespace bench
