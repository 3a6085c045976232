#include "frame.hpp"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace coding {

namespace {

// Reads exactly n bytes or reports why not.
ReadStatus read_exact(int fd, char* buf, size_t n, Clock::time_point deadline) {
    size_t got = 0;
    while (got < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left < 0) return ReadStatus::timeout;
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, left > 0x7fffffff ? 0x7fffffff : static_cast<int>(left) + 1);
        if (r < 0) {
            if (errno == EINTR) continue;
            return ReadStatus::io_error;
        }
        if (r == 0) continue; // the loop re-checks the deadline
        const ssize_t k = ::read(fd, buf + got, n - got);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return ReadStatus::io_error;
        }
        if (k == 0) return ReadStatus::eof;
        got += static_cast<size_t>(k);
    }
    return ReadStatus::ok;
}

} // namespace

namespace {

// A write to a dead sandbox's pipe raises SIGPIPE, which would kill the host.
// Block it on this thread for the write and swallow a pending one, rather
// than changing the host process's signal dispositions.
class SigpipeGuard {
public:
    SigpipeGuard() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
    }
    ~SigpipeGuard() {
        if (broken) {
            const timespec zero{0, 0};
            while (sigtimedwait(&set_, nullptr, &zero) == SIGPIPE) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    bool broken = false;

private:
    sigset_t set_, old_;
};

} // namespace

bool write_frame(int fd, const std::string& payload, Clock::time_point deadline) {
    SigpipeGuard guard;
    const uint32_t n = static_cast<uint32_t>(payload.size());
    std::string buf;
    buf.reserve(4 + payload.size());
    buf.push_back(static_cast<char>(n >> 24));
    buf.push_back(static_cast<char>(n >> 16));
    buf.push_back(static_cast<char>(n >> 8));
    buf.push_back(static_cast<char>(n));
    buf += payload;
    size_t off = 0;
    while (off < buf.size()) {
        const ssize_t k = ::write(fd, buf.data() + off, buf.size() - off);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) guard.broken = true;
            if (errno != EAGAIN) return false;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left < 0) return false;
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, left > 0x7fffffff ? 0x7fffffff : static_cast<int>(left) + 1);
            continue;
        }
        off += static_cast<size_t>(k);
    }
    return true;
}

ReadStatus read_frame(int fd, std::string& out, Clock::time_point deadline, size_t max_bytes) {
    unsigned char hdr[4];
    ReadStatus s = read_exact(fd, reinterpret_cast<char*>(hdr), 4, deadline);
    if (s != ReadStatus::ok) return s;
    const size_t n = (size_t(hdr[0]) << 24) | (size_t(hdr[1]) << 16) | (size_t(hdr[2]) << 8) | size_t(hdr[3]);
    if (n > max_bytes) return ReadStatus::too_large;
    out.resize(n);
    return n == 0 ? ReadStatus::ok : read_exact(fd, out.data(), n, deadline);
}

} // namespace coding
