// Many WebSocket client connections driven by one epoll loop on one thread:
// no thread per connection, so 10k+ sessions cost the generator little CPU.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "socket_set.hpp"
#include "target.hpp"

namespace bench {

struct WsConn : SocketConn {
  enum class State { Idle, Connecting, Handshaking, Open, Closed };
  State state = State::Idle;
  std::string partial;  // a fragmented message being reassembled
  uint32_t mask_key = 0;
  uint64_t t_connect_ns = 0;  // when the TCP connect started
  // Free for the scenario to use.
  int phase = 0;
  int count = 0;
  uint64_t due_ns = 0;
};

class WsHandler {
 public:
  virtual ~WsHandler() = default;
  virtual void on_open(WsConn& c) = 0;                              // upgrade accepted
  virtual void on_message(WsConn& c, std::string_view text) = 0;    // one whole text frame
  virtual void on_closed(WsConn& c, const std::string& why) = 0;    // failed or closed by peer
};

class WsClientPool {
 public:
  WsClientPool(const Target& target, WsHandler& handler, size_t capacity);
  ~WsClientPool();
  WsClientPool(const WsClientPool&) = delete;
  WsClientPool& operator=(const WsClientPool&) = delete;

  WsConn& conn(int id) { return conns_[size_t(id)]; }
  size_t size() const { return conns_.size(); }

  void open(int id);                          // connect + upgrade; on_open or on_closed follows
  void send_text(WsConn& c, std::string_view text);  // stamps t_sent_ns
  void close(WsConn& c, bool polite);         // polite: send a close frame first
  // Waits up to timeout_ms for socket events and dispatches them.
  void poll(int timeout_ms);

 private:
  void on_events(WsConn& c, uint32_t events);
  void on_readable(WsConn& c);
  void parse_frames(WsConn& c);
  void flush(WsConn& c);
  void fail(WsConn& c, const std::string& why);

  Target target_;
  WsHandler& handler_;
  std::vector<WsConn> conns_;
  std::string upgrade_;
  SocketSet sockets_;
  uint32_t rng_ = 0x9E3779B9u;
};

}  // namespace bench
