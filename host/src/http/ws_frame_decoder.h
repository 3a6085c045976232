// Incremental decoder of client-to-server WebSocket frames (RFC 6455, no
// extensions). Bytes go in as they arrive, complete messages come out, so a
// reactor thread never waits for the rest of a frame.
//
// Why not Poco: Poco::Net::WebSocket::receiveFrame blocks until a whole frame
// has arrived, which would let one slow client stall every connection that
// shares a reactor thread.
//
// Threads: one decoder per connection, used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace envhost {

class WsFrameDecoder {
public:
    struct Event {
        enum Kind {
            Text,     // a complete text message in `payload`
            Binary,   // a binary message (the protocol has no use for them)
            Ping,     // answer with a PONG carrying `payload`
            Close,    // the peer's CLOSE; `code` as sent (1005 when none)
            TooBig,   // a message over the limit; the stream cannot continue
            Protocol, // malformed framing; the stream cannot continue
        } kind;
        std::string payload;
        uint16_t code = 1005;
    };

    explicit WsFrameDecoder(std::size_t max_message_bytes) : max_(max_message_bytes) {}

    // Consumes data and appends the events it completes. After a TooBig,
    // Protocol or Close event, further input is ignored.
    void feed(const char* data, std::size_t n, std::vector<Event>& out);

    bool finished() const { return finished_; }

private:
    // Parses one frame from the front of buf_; false when incomplete.
    bool next_frame(std::vector<Event>& out);
    void fail(Event::Kind kind, std::vector<Event>& out);

    const std::size_t max_;
    std::string buf_;      // bytes not yet parsed
    std::size_t pos_ = 0;  // parse position in buf_
    std::string message_;  // fragments of the message being reassembled
    int message_op_ = -1;  // its opcode, or -1 when none is open
    bool finished_ = false;
};

} // namespace envhost
