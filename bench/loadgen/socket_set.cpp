#include "socket_set.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace bench {

IoStatus read_available(SocketConn& c) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, size_t(n));
      continue;
    }
    if (n == 0) return IoStatus::PeerClosed;
    return errno == EAGAIN || errno == EWOULDBLOCK ? IoStatus::Ok : IoStatus::Failed;
  }
}

IoStatus write_pending(SocketConn& c) {
  while (c.out_off < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_off += size_t(n);
      continue;
    }
    // Full (EPOLLOUT resumes it) or still connecting (the connect completion does).
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN)) return IoStatus::Ok;
    return IoStatus::Failed;
  }
  c.out.clear();
  c.out_off = 0;
  return IoStatus::Ok;
}

int connect_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err;
}

SocketSet::SocketSet() {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) throw std::runtime_error("epoll_create1 failed");
}

SocketSet::~SocketSet() { ::close(epfd_); }

void SocketSet::watch(const SocketConn& c) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.u32 = uint32_t(c.id);
  epoll_ctl(epfd_, EPOLL_CTL_ADD, c.fd, &ev);
}

void SocketSet::close(SocketConn& c) {
  if (c.fd < 0) return;
  epoll_ctl(epfd_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  c.fd = -1;
}

int SocketSet::wait_raw(int timeout_ms, uint32_t* ids, uint32_t* events) {
  epoll_event ev[kMaxEvents];
  const int n = epoll_wait(epfd_, ev, kMaxEvents, timeout_ms);
  for (int i = 0; i < n; ++i) {
    ids[i] = ev[i].data.u32;
    events[i] = ev[i].events;
  }
  return n < 0 ? 0 : n;
}

}  // namespace bench
