// Length-prefixed frames on pipes between the plugin and driver.py:
// a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
//
// Threads: stateless helpers; the caller owns the fds and uses each from one
// thread at a time (the session's worker thread, or the pool thread).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace coding {

using Clock = std::chrono::steady_clock;

enum class ReadStatus { ok, eof, timeout, too_large, io_error };

// Writes the whole frame before deadline (fd may be non-blocking: a sandbox
// that stops reading must not block us). Returns false on EPIPE, error or timeout.
bool write_frame(int fd, const std::string& payload, Clock::time_point deadline);

// Reads one frame into out, waiting until deadline. Frames larger than
// max_bytes are refused (the peer is untrusted).
ReadStatus read_frame(int fd, std::string& out, Clock::time_point deadline, size_t max_bytes);

} // namespace coding
