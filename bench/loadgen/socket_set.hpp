// What the HTTP and WebSocket client pools share: one edge-triggered epoll
// set over non-blocking sockets, and the buffered reads and writes on them.
// Single-threaded, like the pools.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace bench {

// A connection's socket and byte buffers; the pools' connections extend it.
struct SocketConn {
  int id = 0;
  int fd = -1;
  std::string in;       // received bytes not yet parsed
  std::string out;      // bytes waiting for the socket to accept them
  size_t out_off = 0;
  uint64_t t_sent_ns = 0;  // when the last request was queued

  void reset_buffers() {
    in.clear();
    out.clear();
    out_off = 0;
  }
};

enum class IoStatus { Ok, PeerClosed, Failed };  // Failed: errno says why

// Appends everything the socket has to c.in.
IoStatus read_available(SocketConn& c);
// Writes c.out until done or the socket is full (EPOLLOUT resumes it).
IoStatus write_pending(SocketConn& c);
// After a non-blocking connect: 0 when established, else the socket error.
int connect_error(int fd);

class SocketSet {
 public:
  SocketSet();
  ~SocketSet();
  SocketSet(const SocketSet&) = delete;
  SocketSet& operator=(const SocketSet&) = delete;

  void watch(const SocketConn& c);    // in, out, hang-up; edge-triggered
  void close(SocketConn& c);          // stops watching and closes the socket

  // Waits up to timeout_ms; calls on_event(id, epoll events) for each ready socket.
  template <class F>
  void wait(int timeout_ms, F&& on_event) {
    uint32_t ids[kMaxEvents], events[kMaxEvents];
    const int n = wait_raw(timeout_ms, ids, events);
    for (int i = 0; i < n; ++i) on_event(int(ids[i]), events[i]);
  }

 private:
  static constexpr int kMaxEvents = 512;
  int wait_raw(int timeout_ms, uint32_t* ids, uint32_t* events);
  int epfd_ = -1;
};

}  // namespace bench
