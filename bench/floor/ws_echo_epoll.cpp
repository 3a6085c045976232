// The physical floor for a WebSocket step: a single-threaded epoll server that
// sends each text frame straight back. No JSON, no env, no thread hand-off:
// whatever a real server adds on top of this is its own cost.
//
//   ws-echo-epoll PORT          (listens on 127.0.0.1)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <Poco/Base64Encoder.h>
#include <Poco/SHA1Engine.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <unordered_map>

#include "ws_frame.hpp"

namespace {

struct Peer {
  bool upgraded = false;
  std::string in, out;
};

std::string accept_key(const std::string& key) {
  Poco::SHA1Engine sha1;
  sha1.update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
  const auto& digest = sha1.digest();
  std::ostringstream b64;
  Poco::Base64Encoder enc(b64);
  enc.write(reinterpret_cast<const char*>(digest.data()), std::streamsize(digest.size()));
  enc.close();
  return b64.str();
}

// Returns false when the peer must be dropped.
bool handle_input(Peer& p) {
  if (!p.upgraded) {
    auto end = p.in.find("\r\n\r\n");
    if (end == std::string::npos) return true;
    auto k = p.in.find("Sec-WebSocket-Key:");
    if (k == std::string::npos) return false;
    k += 18;
    while (p.in[k] == ' ') ++k;
    std::string key = p.in.substr(k, p.in.find("\r\n", k) - k);
    p.out += "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Accept: " + accept_key(key) + "\r\n\r\n";
    p.in.erase(0, end + 4);
    p.upgraded = true;
  }
  size_t off = 0;
  while (off < p.in.size()) {
    bench::ws::Frame f;
    long used = bench::ws::parse_frame(&p.in[off], p.in.size() - off, f);
    if (used == 0) break;
    if (used < 0 || f.opcode == bench::ws::kClose) return false;
    off += size_t(used);
    if (f.opcode == bench::ws::kPing) bench::ws::append_frame(p.out, bench::ws::kPong, f.payload, 0);
    else if (f.opcode == bench::ws::kText || f.opcode == bench::ws::kBinary)
      bench::ws::append_frame(p.out, f.opcode, f.payload, 0);
  }
  p.in.erase(0, off);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ws-echo-epoll PORT\n");
    return 2;
  }
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(std::atoi(argv[1])));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(lfd, 4096) != 0) {
    std::perror("bind/listen");
    return 1;
  }
  int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::unordered_map<int, Peer> peers;
  epoll_event events[512];
  char buf[65536];
  for (;;) {
    int n = epoll_wait(ep, events, 512, -1);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        for (int c; (c = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event cev{};
          cev.events = EPOLLIN | EPOLLRDHUP;
          cev.data.fd = c;
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
          peers[c];
        }
        continue;
      }
      Peer& p = peers[fd];
      bool alive = true;
      for (;;) {
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r > 0) {
          p.in.append(buf, size_t(r));
          continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) alive = false;
        break;
      }
      if (alive) alive = handle_input(p);
      // Replies are small; a blocking-style write loop is enough for a floor.
      size_t sent = 0;
      while (alive && sent < p.out.size()) {
        ssize_t w = send(fd, p.out.data() + sent, p.out.size() - sent, MSG_NOSIGNAL);
        if (w > 0) sent += size_t(w);
        else if (w < 0 && errno != EAGAIN) alive = false;
      }
      p.out.clear();
      if (!alive) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        peers.erase(fd);
      }
    }
  }
}
