#include "ws_client_pool.hpp"

#include <sys/epoll.h>

#include <cerrno>
#include <cstring>

#include "clock.hpp"
#include "ws_frame.hpp"

namespace bench {

WsClientPool::WsClientPool(const Target& target, WsHandler& handler, size_t capacity)
    : target_(target), handler_(handler), conns_(capacity),
      upgrade_(ws::upgrade_request(target.host, target.port, target.path)) {
  for (size_t i = 0; i < conns_.size(); ++i) conns_[i].id = int(i);
}

WsClientPool::~WsClientPool() {
  for (auto& c : conns_) sockets_.close(c);
}

void WsClientPool::open(int id) {
  WsConn& c = conn(id);
  c.reset_buffers();
  c.partial.clear();
  rng_ ^= rng_ << 13, rng_ ^= rng_ >> 17, rng_ ^= rng_ << 5;
  c.mask_key = rng_ | 1;  // never zero: a zero key would mean "unmasked"
  c.t_connect_ns = now_ns();
  c.fd = start_connect(target_, id);
  if (c.fd < 0) {
    c.state = WsConn::State::Closed;
    handler_.on_closed(c, std::string("connect: ") + std::strerror(errno));
    return;
  }
  c.state = WsConn::State::Connecting;
  sockets_.watch(c);
}

void WsClientPool::send_text(WsConn& c, std::string_view text) {
  if (c.state != WsConn::State::Open) return;
  ws::append_frame(c.out, ws::kText, text, c.mask_key);
  c.t_sent_ns = now_ns();
  flush(c);
}

void WsClientPool::close(WsConn& c, bool polite) {
  if (c.fd < 0) return;
  if (polite && c.state == WsConn::State::Open) {
    ws::append_frame(c.out, ws::kClose, std::string_view("\x03\xe8", 2), c.mask_key);  // 1000
    flush(c);
  }
  sockets_.close(c);
  c.state = WsConn::State::Closed;
}

void WsClientPool::fail(WsConn& c, const std::string& why) {
  close(c, false);
  handler_.on_closed(c, why);
}

void WsClientPool::poll(int timeout_ms) {
  sockets_.wait(timeout_ms, [this](int id, uint32_t events) { on_events(conn(id), events); });
}

void WsClientPool::on_events(WsConn& c, uint32_t events) {
  if (c.fd < 0) return;
  if (c.state == WsConn::State::Connecting) {
    if (int err = connect_error(c.fd)) return fail(c, std::string("connect: ") + std::strerror(err));
    if (!(events & EPOLLOUT)) return;
    c.state = WsConn::State::Handshaking;
    c.out.append(upgrade_);
    flush(c);
    if (c.fd < 0) return;
  }
  if (events & EPOLLOUT) flush(c);
  if (c.fd >= 0 && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) on_readable(c);
}

void WsClientPool::on_readable(WsConn& c) {
  const IoStatus read = read_available(c);
  if (read == IoStatus::Failed) return fail(c, std::string("recv: ") + std::strerror(errno));
  const bool peer_closed = read == IoStatus::PeerClosed;
  if (c.state == WsConn::State::Handshaking) {
    auto end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (peer_closed) fail(c, "closed during upgrade");
      return;
    }
    if (c.in.compare(0, 12, "HTTP/1.1 101") != 0)
      return fail(c, "upgrade refused: " + c.in.substr(0, c.in.find("\r\n")));
    c.in.erase(0, end + 4);
    c.state = WsConn::State::Open;
    handler_.on_open(c);
  }
  if (c.state == WsConn::State::Open) parse_frames(c);
  if (peer_closed && c.fd >= 0) fail(c, "peer closed the connection");
}

void WsClientPool::parse_frames(WsConn& c) {
  size_t off = 0;
  // A handler may close (or even reopen) the connection: stop once it is not Open.
  while (c.state == WsConn::State::Open && off < c.in.size()) {
    ws::Frame f;
    long used = ws::parse_frame(&c.in[off], c.in.size() - off, f);
    if (used == 0) break;
    if (used < 0) return fail(c, "bad frame from server");
    off += size_t(used);
    switch (f.opcode) {
      case ws::kText:
      case ws::kBinary:
      case ws::kContinuation:
        if (f.fin && c.partial.empty()) {
          handler_.on_message(c, f.payload);
        } else {
          c.partial.append(f.payload);
          if (f.fin) {
            std::string whole;
            whole.swap(c.partial);
            handler_.on_message(c, whole);
          }
        }
        break;
      case ws::kPing: {
        std::string payload(f.payload);
        ws::append_frame(c.out, ws::kPong, payload, c.mask_key);
        flush(c);
        break;
      }
      case ws::kClose:
        // Keep the close reason: a server may explain itself there.
        return fail(c, "server closed the session" +
                           (f.payload.size() > 2 ? ": " + std::string(f.payload.substr(2)) : std::string()));
      default:
        break;
    }
  }
  if (c.state == WsConn::State::Open) c.in.erase(0, off);
}

void WsClientPool::flush(WsConn& c) {
  if (c.fd >= 0 && write_pending(c) == IoStatus::Failed) fail(c, std::string("send: ") + std::strerror(errno));
}

}  // namespace bench
