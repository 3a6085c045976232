#include "http_client_pool.hpp"

#include <strings.h>
#include <sys/epoll.h>

#include <cerrno>
#include <cstring>

#include "clock.hpp"

namespace bench {

HttpClientPool::HttpClientPool(const Target& target, HttpHandler& handler, size_t capacity)
    : target_(target), handler_(handler), conns_(capacity) {
  for (size_t i = 0; i < conns_.size(); ++i) conns_[i].id = int(i);
}

HttpClientPool::~HttpClientPool() {
  for (auto& c : conns_) sockets_.close(c);
}

void HttpClientPool::open(int id) {
  HttpConn& c = conn(id);
  c.reset_buffers();
  c.connected = false;
  c.fd = start_connect(target_, id);
  if (c.fd < 0) return handler_.on_failed(c, std::string("connect: ") + std::strerror(errno));
  sockets_.watch(c);
}

void HttpClientPool::post(HttpConn& c, std::string_view body) {
  c.out += "POST " + target_.path + " HTTP/1.1\r\nHost: " + target_.host + ":" +
           std::to_string(target_.port) + "\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n";
  c.out.append(body);
  c.t_sent_ns = now_ns();
  if (c.connected) flush(c);  // otherwise the connect completion flushes it
}

void HttpClientPool::fail(HttpConn& c, const std::string& why) {
  sockets_.close(c);
  handler_.on_failed(c, why);
}

void HttpClientPool::poll(int timeout_ms) {
  sockets_.wait(timeout_ms, [this](int id, uint32_t events) { on_events(conn(id), events); });
}

void HttpClientPool::on_events(HttpConn& c, uint32_t events) {
  if (c.fd < 0) return;
  if (!c.connected) {
    if (int err = connect_error(c.fd)) return fail(c, std::string("connect: ") + std::strerror(err));
    if (!(events & EPOLLOUT)) return;
    c.connected = true;
  }
  if (events & EPOLLOUT) flush(c);
  if (c.fd < 0 || !(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return;
  const IoStatus read = read_available(c);
  if (read == IoStatus::Failed) return fail(c, std::string("recv: ") + std::strerror(errno));
  const bool peer_closed = read == IoStatus::PeerClosed;
  parse_responses(c);
  if (peer_closed && c.fd >= 0) fail(c, "peer closed the connection");
}

void HttpClientPool::parse_responses(HttpConn& c) {
  while (c.fd >= 0 && !c.in.empty()) {
    int status = 0;
    std::string body;
    bool close_after = false;
    long used = parse_http_response(c.in, status, body, close_after);
    if (used == 0) return;
    if (used < 0) return fail(c, "malformed HTTP response");
    c.in.erase(0, size_t(used));
    handler_.on_response(c, status, body);
    if (close_after && c.fd >= 0) return fail(c, "server closed keep-alive");
  }
}

void HttpClientPool::flush(HttpConn& c) {
  if (c.fd >= 0 && write_pending(c) == IoStatus::Failed) fail(c, std::string("send: ") + std::strerror(errno));
}

namespace {

// Value of a header (case-insensitive name) within the header block, or "".
std::string header_value(const std::string& head, const char* name) {
  const size_t name_len = std::strlen(name);
  size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos + 2 < head.size()) {
    size_t line = pos + 2;
    size_t eol = head.find("\r\n", line);
    if (eol == std::string::npos) eol = head.size();
    if (eol - line > name_len && head[line + name_len] == ':' &&
        strncasecmp(head.c_str() + line, name, name_len) == 0) {
      size_t v = line + name_len + 1;
      while (v < eol && head[v] == ' ') ++v;
      return head.substr(v, eol - v);
    }
    pos = eol;
  }
  return {};
}

}  // namespace

long parse_http_response(const std::string& buf, int& status, std::string& body, bool& close_after) {
  size_t head_end = buf.find("\r\n\r\n");
  if (head_end == std::string::npos) return 0;
  if (buf.compare(0, 5, "HTTP/") != 0 || buf.size() < 12) return -1;
  status = std::atoi(buf.c_str() + 9);
  const std::string head = buf.substr(0, head_end);
  close_after = strcasecmp(header_value(head, "Connection").c_str(), "close") == 0;
  size_t pos = head_end + 4;
  std::string length = header_value(head, "Content-Length");
  if (!length.empty()) {
    size_t n = std::stoul(length);
    if (buf.size() - pos < n) return 0;
    body.assign(buf, pos, n);
    return long(pos + n);
  }
  if (strcasecmp(header_value(head, "Transfer-Encoding").c_str(), "chunked") != 0) return -1;
  body.clear();
  for (;;) {
    size_t eol = buf.find("\r\n", pos);
    if (eol == std::string::npos) return 0;
    size_t n = std::stoul(buf.substr(pos, eol - pos), nullptr, 16);
    pos = eol + 2;
    if (buf.size() < pos + n + 2) return 0;
    if (n == 0) return long(pos + 2);  // no trailers are expected
    body.append(buf, pos, n);
    pos += n + 2;
  }
}

}  // namespace bench
