#include "target.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace bench {

Target parse_target(const std::string& url) {
  Target t;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) throw std::runtime_error("bad url: " + url);
  auto rest = url.substr(scheme_end + 3);
  auto slash = rest.find('/');
  auto hostport = rest.substr(0, slash);
  t.path = slash == std::string::npos ? "/" : rest.substr(slash);
  auto colon = hostport.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("url needs a port: " + url);
  t.host = hostport.substr(0, colon);
  t.port = std::stoi(hostport.substr(colon + 1));
  t.addr.sin_family = AF_INET;
  t.addr.sin_port = htons(uint16_t(t.port));
  if (inet_pton(AF_INET, t.host.c_str(), &t.addr.sin_addr) != 1)
    throw std::runtime_error("host must be a numeric IPv4 address: " + t.host);
  return t;
}

int start_connect(const Target& target, int index) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // Spread sources over 127.0.0.1-16 when the target is on loopback.
  if ((ntohl(target.addr.sin_addr.s_addr) >> 24) == 127) {
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    sockaddr_in src{};
    src.sin_family = AF_INET;
    src.sin_addr.s_addr = htonl((127u << 24) | uint32_t(1 + index % 16));
    if (bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
  }
  if (connect(fd, reinterpret_cast<const sockaddr*>(&target.addr), sizeof target.addr) != 0 &&
      errno != EINPROGRESS) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace bench
