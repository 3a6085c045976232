#include "ws_connection.h"

#include <Poco/Buffer.h>
#include <Poco/Net/NetException.h>
#include <Poco/Timespan.h>

#include <poll.h>
#include <sys/socket.h>

#include <chrono>

namespace envhost {

using Poco::Net::WebSocket;

WsConnection::WsConnection(WebSocket socket, std::size_t max_message_bytes)
    : ws_(std::move(socket)), max_message_bytes_(max_message_bytes) {
    ws_.setNoDelay(true); // replies are small; Nagle would add latency
    ws_.setMaxPayloadSize(static_cast<int>(std::min<std::size_t>(max_message_bytes_, 0x7fffffff)));
    // Reads wake up periodically so a shut-down connection is noticed even
    // if the peer is silent.
    ws_.setReceiveTimeout(Poco::Timespan(5, 0));
}

WsConnection::ReadStatus WsConnection::read_message(std::string& out) {
    out.clear();
    Poco::Buffer<char> frame(0);
    int message_op = -1; // opcode of the message being reassembled
    for (;;) {
        if (shut_down_) return ReadStatus::Closed;
        int flags = 0;
        int n;
        frame.resize(0);
        try {
            n = ws_.receiveFrame(frame, flags);
        } catch (const Poco::TimeoutException&) {
            continue;
        } catch (const Poco::Net::WebSocketException& e) {
            if (e.code() == WebSocket::WS_ERR_PAYLOAD_TOO_BIG) return ReadStatus::TooBig;
            broken_ = true;
            close_code_ = 1006;
            return ReadStatus::Closed;
        } catch (const Poco::Exception&) {
            broken_ = true;
            close_code_ = 1006;
            return ReadStatus::Closed;
        }
        const int op = flags & WebSocket::FRAME_OP_BITMASK;
        if (n == 0 && flags == 0) { // peer shut the TCP connection
            broken_ = true;
            close_code_ = 1006;
            return ReadStatus::Closed;
        }
        switch (op) {
        case WebSocket::FRAME_OP_PING:
            send_frame(frame.begin(), static_cast<std::size_t>(n), WebSocket::FRAME_FLAG_FIN | WebSocket::FRAME_OP_PONG);
            continue;
        case WebSocket::FRAME_OP_PONG:
            continue;
        case WebSocket::FRAME_OP_CLOSE:
            close_code_ = n >= 2 ? static_cast<unsigned short>((static_cast<unsigned char>(frame[0]) << 8) |
                                                                static_cast<unsigned char>(frame[1]))
                                 : 1005;
            return ReadStatus::Closed;
        case WebSocket::FRAME_OP_TEXT:
        case WebSocket::FRAME_OP_BINARY:
            message_op = op;
            out.assign(frame.begin(), static_cast<std::size_t>(n));
            break;
        case WebSocket::FRAME_OP_CONT:
            if (message_op < 0) return ReadStatus::Binary; // continuation of nothing: protocol error
            out.append(frame.begin(), static_cast<std::size_t>(n));
            break;
        default:
            return ReadStatus::Binary;
        }
        if (out.size() > max_message_bytes_) return ReadStatus::TooBig;
        if (flags & WebSocket::FRAME_FLAG_FIN) return message_op == WebSocket::FRAME_OP_TEXT ? ReadStatus::Text : ReadStatus::Binary;
    }
}

bool WsConnection::send_frame(const void* data, std::size_t n, int flags) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (broken_ || close_sent_) return false;
    try {
        ws_.sendFrame(data, static_cast<int>(n), flags);
        return true;
    } catch (const Poco::Exception&) {
        broken_ = true;
        return false;
    }
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

void WsConnection::discard_input(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    const int fd = ws_.impl()->sockfd();
    char buf[65536];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 250) <= 0) return; // quiet: the peer has sent all it had
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) return; // EOF or error: the peer is done
    }
}

void WsConnection::shutdown() {
    shut_down_ = true;
    try {
        ws_.shutdownReceive();
    } catch (const Poco::Exception&) {
    }
}

} // namespace envhost
