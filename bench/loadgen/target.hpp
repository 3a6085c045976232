// Where the load goes: host, port and path parsed from ws:// or http:// URLs,
// and non-blocking loopback connects.
#pragma once
#include <netinet/in.h>

#include <string>

namespace bench {

struct Target {
  std::string host;  // numeric IPv4 (loopback only: this tool never resolves names)
  int port = 0;
  std::string path;  // "/ws", "/envs/echo_env/step", ...
  sockaddr_in addr{};
};

// Parses "ws://127.0.0.1:8000/ws" or "http://127.0.0.1:8000/step"; throws on error.
Target parse_target(const std::string& url);

// Starts a non-blocking TCP connect to the target. Connection `index` picks one
// of several loopback source addresses so that tens of thousands of sockets do
// not run out of ephemeral ports. Returns the fd, or -1 with errno set.
int start_connect(const Target& target, int index);

}  // namespace bench
