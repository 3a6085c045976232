// One server-side WebSocket connection: message reading for the connection's
// I/O thread, and thread-safe sending for session workers.
//
// Ownership: shared between the I/O thread (Poco's request-handler thread for
// the connection) and tasks queued on the session's worker.
// Threads: read_message() only on the I/O thread; send_*(), shutdown() from
// any thread (a mutex serialises frames on the wire). PINGs are answered
// inside read_message, so they never wait for environment work.
#pragma once

#include <Poco/Net/WebSocket.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>

namespace envhost {

class WsConnection {
public:
    WsConnection(Poco::Net::WebSocket socket, std::size_t max_message_bytes);

    enum class ReadStatus { Text, Binary, TooBig, Closed };
    // Blocks until a complete data message arrives (reassembling fragments,
    // answering PINGs) or the connection ends. On TooBig the message was not
    // read and the connection must be ended. On Closed, close_code() tells
    // what the peer sent (1005 when no code, 1006 on a broken connection).
    ReadStatus read_message(std::string& out);

    bool send_text(const std::string& text);
    bool send_json(const nlohmann::json& j);
    // Sends a CLOSE frame once; later calls do nothing.
    void send_close(unsigned short code, const std::string& reason = "");
    // Wakes a blocked read_message so the I/O thread ends the connection.
    void shutdown();
    // Reads and discards what the peer still sends (e.g. the rest of an
    // oversized frame) until it is quiet for 250 ms, for up to `seconds`, so closing the socket does not
    // reset the connection before the peer has read our last frames.
    // I/O thread only.
    void discard_input(double seconds);

    bool broken() const { return broken_.load(); }
    unsigned short close_code() const { return close_code_; }

private:
    bool send_frame(const void* data, std::size_t n, int flags);

    Poco::Net::WebSocket ws_;
    const std::size_t max_message_bytes_;
    std::mutex send_mu_;
    bool close_sent_ = false;
    std::atomic<bool> broken_{false};
    std::atomic<bool> shut_down_{false};
    unsigned short close_code_ = 1005;
};

} // namespace envhost
