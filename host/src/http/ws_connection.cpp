#include "http/ws_connection.h"

#include <Poco/Net/NetException.h>
#include <Poco/Timespan.h>

#include <sys/socket.h>

#include <cerrno>

namespace envhost {

using Poco::Net::WebSocket;

namespace {
// A client that stops reading cannot hold a worker in send() for ever.
const Poco::Timespan kSendTimeout(30, 0);
// Bytes read per wake-up, so one busy connection cannot starve the others
// on the same reactor thread.
constexpr std::size_t kReadBudget = 1 << 20;
} // namespace

WsConnection::WsConnection(WebSocket socket, std::size_t max_message_bytes)
    : ws_(std::move(socket)), fd_(ws_.impl()->sockfd()), decoder_(max_message_bytes) {
    ws_.setNoDelay(true); // replies are small; Nagle would add latency
    ws_.setSendTimeout(kSendTimeout);
}

WsConnection::ReadStatus WsConnection::read_available(std::vector<WsFrameDecoder::Event>& events) {
    char buf[65536];
    std::size_t total = 0;
    while (total < kReadBudget) {
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            total += static_cast<std::size_t>(n);
            if (!decoder_.finished()) decoder_.feed(buf, static_cast<std::size_t>(n), events);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0 && errno == EINTR) continue;
        broken_ = true; // 0: the peer closed; <0: the socket failed
        return ReadStatus::Eof;
    }
    for (auto& e : events)
        if (e.kind == WsFrameDecoder::Event::Ping) send_pong(std::move(e.payload));
    return ReadStatus::Open;
}

bool WsConnection::send_frame(const void* data, std::size_t n, int flags) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (broken_ || close_sent_) return false;
    bool ok = true;
    try {
        ws_.sendFrame(data, static_cast<int>(n), flags);
    } catch (const Poco::Exception&) {
        broken_ = true;
        ok = false;
        ::shutdown(fd_, SHUT_RDWR); // let the reactor see the end
    }
    flush_pending_locked();
    return ok;
}

void WsConnection::flush_pending_locked() {
    std::optional<std::string> pong;
    {
        std::lock_guard<std::mutex> lock(pending_mu_);
        pong.swap(pending_pong_);
    }
    if (!pong || broken_ || close_sent_) return;
    try {
        ws_.sendFrame(pong->data(), static_cast<int>(pong->size()), WebSocket::FRAME_FLAG_FIN | WebSocket::FRAME_OP_PONG);
    } catch (const Poco::Exception&) {
        broken_ = true;
    }
}

void WsConnection::send_pong(std::string payload) {
    {
        std::lock_guard<std::mutex> lock(pending_mu_);
        pending_pong_ = std::move(payload); // only the latest PING needs an answer
    }
    std::unique_lock<std::mutex> lock(send_mu_, std::try_to_lock);
    if (lock.owns_lock()) flush_pending_locked();
    // else: the worker holding the lock sends it when its frame is out.
}

bool WsConnection::send_text(const std::string& text) {
    return send_frame(text.data(), text.size(), WebSocket::FRAME_TEXT);
}

bool WsConnection::send_json(const nlohmann::json& j) {
    return send_text(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void WsConnection::send_close(unsigned short code, const std::string& reason) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (close_sent_ || broken_) return;
    close_sent_ = true;
    std::string payload;
    payload += static_cast<char>(code >> 8);
    payload += static_cast<char>(code & 0xff);
    payload += reason.substr(0, 120);
    try {
        ws_.sendFrame(payload.data(), static_cast<int>(payload.size()), WebSocket::FRAME_FLAG_FIN | WebSocket::FRAME_OP_CLOSE);
    } catch (const Poco::Exception&) {
        broken_ = true;
    }
}

void WsConnection::shutdown_send() { ::shutdown(fd_, SHUT_WR); }

} // namespace envhost
