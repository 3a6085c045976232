// One server-side WebSocket connection after the upgrade: non-blocking reads
// for the reactor thread that watches it, thread-safe frame sending for the
// session's worker.
//
// Ownership: shared by the reactor (while it watches the socket), the
// session's queued tasks and its hooks; the socket closes with the last one.
// Threads: read_available() only on the owning reactor thread; send_*() and
// shutdown_send() from any thread. One mutex serialises frames on the wire; a
// PONG that finds it taken is sent by the holder before it lets go, so the
// reactor never waits behind a large or slow send.
#pragma once

#include "http/ws_frame_decoder.h"

#include <Poco/Net/WebSocket.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace envhost {

class WsConnection {
public:
    WsConnection(Poco::Net::WebSocket socket, std::size_t max_message_bytes);

    int fd() const { return fd_; }

    enum class ReadStatus { Open, Eof };
    // Reads what the kernel has (without waiting) and decodes it. PINGs are
    // answered here. Eof: the peer closed or the socket failed.
    ReadStatus read_available(std::vector<WsFrameDecoder::Event>& events);

    bool send_text(const std::string& text);
    bool send_json(const nlohmann::json& j);
    // Sends a CLOSE frame once; later calls do nothing.
    void send_close(unsigned short code, const std::string& reason = "");
    // Half-closes our side after the CLOSE frame, so the peer sees the end
    // while we still read (and drop) what it had in flight.
    void shutdown_send();

    bool broken() const { return broken_.load(); }

private:
    bool send_frame(const void* data, std::size_t n, int flags);
    void send_pong(std::string payload);
    void flush_pending_locked();

    Poco::Net::WebSocket ws_;
    const int fd_;
    WsFrameDecoder decoder_;
    std::mutex send_mu_;
    std::mutex pending_mu_;
    std::optional<std::string> pending_pong_;
    bool close_sent_ = false;
    std::atomic<bool> broken_{false};
};

} // namespace envhost
