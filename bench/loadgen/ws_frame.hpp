// The bits of RFC 6455 a load generator and an echo server need: building
// frames (masked from a client, plain from a server) and parsing them in place.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bench::ws {

enum Opcode : uint8_t { kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };

// Appends one complete (FIN) frame to `out`. A non-zero mask key masks the
// payload, as clients must.
void append_frame(std::string& out, Opcode op, std::string_view payload, uint32_t mask_key);

struct Frame {
  Opcode opcode;
  bool fin;
  std::string_view payload;  // already unmasked, points into the parsed buffer
};

// Parses one frame from buf[0..len). Returns bytes consumed, 0 if the frame is
// incomplete, or -1 if the header is invalid. Unmasks the payload in place.
long parse_frame(char* buf, size_t len, Frame& frame);

// The client's upgrade request (the key is fixed: nothing here checks the accept).
std::string upgrade_request(const std::string& host, int port, const std::string& path);

}  // namespace bench::ws
