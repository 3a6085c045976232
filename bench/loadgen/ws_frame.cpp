#include "ws_frame.hpp"

#include <cstring>

namespace bench::ws {

void append_frame(std::string& out, Opcode op, std::string_view payload, uint32_t mask_key) {
  const size_t n = payload.size();
  const uint8_t mask_bit = mask_key ? 0x80 : 0;
  out.push_back(char(0x80 | op));
  if (n < 126) {
    out.push_back(char(mask_bit | n));
  } else if (n <= 0xFFFF) {
    out.push_back(char(mask_bit | 126));
    out.push_back(char(n >> 8));
    out.push_back(char(n & 0xFF));
  } else {
    out.push_back(char(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(char((uint64_t(n) >> shift) & 0xFF));
  }
  if (!mask_key) {
    out.append(payload);
    return;
  }
  uint8_t key[4];
  std::memcpy(key, &mask_key, 4);
  out.append(reinterpret_cast<const char*>(key), 4);
  const size_t start = out.size();
  out.append(payload);
  for (size_t i = 0; i < n; ++i) out[start + i] = char(uint8_t(out[start + i]) ^ key[i & 3]);
}

long parse_frame(char* buf, size_t len, Frame& frame) {
  if (len < 2) return 0;
  const auto* b = reinterpret_cast<const uint8_t*>(buf);
  if (b[0] & 0x70) return -1;  // reserved bits: no extensions were negotiated
  frame.fin = b[0] & 0x80;
  frame.opcode = Opcode(b[0] & 0x0F);
  const bool masked = b[1] & 0x80;
  uint64_t n = b[1] & 0x7F;
  size_t pos = 2;
  if (n == 126) {
    if (len < 4) return 0;
    n = (uint64_t(b[2]) << 8) | b[3];
    pos = 4;
  } else if (n == 127) {
    if (len < 10) return 0;
    n = 0;
    for (int i = 0; i < 8; ++i) n = (n << 8) | b[2 + i];
    pos = 10;
  }
  uint8_t key[4] = {0, 0, 0, 0};
  if (masked) {
    if (len < pos + 4) return 0;
    std::memcpy(key, buf + pos, 4);
    pos += 4;
  }
  if (len - pos < n) return 0;
  char* payload = buf + pos;
  if (masked)
    for (uint64_t i = 0; i < n; ++i) payload[i] = char(uint8_t(payload[i]) ^ key[i & 3]);
  frame.payload = std::string_view(payload, size_t(n));
  return long(pos + n);
}

std::string upgrade_request(const std::string& host, int port, const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(port) +
         "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: ZW52aG9zdC1iZW5jaC1rIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

}  // namespace bench::ws
