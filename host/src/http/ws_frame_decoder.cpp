#include "http/ws_frame_decoder.h"

namespace envhost {
namespace {

constexpr int kOpContinuation = 0x0, kOpText = 0x1, kOpBinary = 0x2, kOpClose = 0x8, kOpPing = 0x9, kOpPong = 0xA;

} // namespace

void WsFrameDecoder::feed(const char* data, std::size_t n, std::vector<Event>& out) {
    if (finished_) return;
    buf_.append(data, n);
    while (!finished_ && next_frame(out)) {
    }
    // Drop what was parsed; keep the incomplete tail.
    if (pos_ > 0) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
}

void WsFrameDecoder::fail(Event::Kind kind, std::vector<Event>& out) {
    out.push_back({kind, {}, 1005});
    finished_ = true;
    buf_.clear();
    pos_ = 0;
    message_.clear();
}

bool WsFrameDecoder::next_frame(std::vector<Event>& out) {
    const std::size_t avail = buf_.size() - pos_;
    const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
    if (avail < 2) return false;
    const bool fin = p[0] & 0x80;
    const int op = p[0] & 0x0F;
    const bool masked = p[1] & 0x80;
    uint64_t len = p[1] & 0x7F;
    std::size_t header = 2;
    if ((p[0] & 0x70) != 0 || !masked) { // no extensions; clients must mask
        fail(Event::Protocol, out);
        return false;
    }
    if (len == 126) {
        if (avail < 4) return false;
        len = (uint64_t(p[2]) << 8) | p[3];
        header = 4;
    } else if (len == 127) {
        if (avail < 10) return false;
        len = 0;
        for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
        header = 10;
    }
    const bool control = op & 0x8;
    if (control && (!fin || len > 125)) {
        fail(Event::Protocol, out);
        return false;
    }
    // Refuse oversized messages from the header, before buffering them.
    if (!control && (len > max_ || message_.size() + len > max_)) {
        fail(Event::TooBig, out);
        return false;
    }
    if (avail < header + 4 + len) return false;
    const unsigned char* mask = p + header;
    std::string payload(reinterpret_cast<const char*>(p + header + 4), static_cast<std::size_t>(len));
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(payload[i] ^ mask[i & 3]);
    pos_ += header + 4 + static_cast<std::size_t>(len);

    switch (op) {
    case kOpPing:
        out.push_back({Event::Ping, std::move(payload), 1005});
        return true;
    case kOpPong:
        return true;
    case kOpClose: {
        uint16_t code = 1005;
        if (payload.size() >= 2)
            code = static_cast<uint16_t>((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]));
        out.push_back({Event::Close, {}, code});
        finished_ = true;
        return false;
    }
    case kOpText:
    case kOpBinary:
        if (message_op_ >= 0) { // a new message inside an unfinished one
            fail(Event::Protocol, out);
            return false;
        }
        message_op_ = op;
        message_ = std::move(payload);
        break;
    case kOpContinuation:
        if (message_op_ < 0) {
            fail(Event::Protocol, out);
            return false;
        }
        message_ += payload;
        break;
    default:
        fail(Event::Protocol, out);
        return false;
    }
    if (fin) {
        out.push_back({message_op_ == kOpText ? Event::Text : Event::Binary, std::move(message_), 1005});
        message_.clear();
        message_op_ = -1;
    }
    return true;
}

} // namespace envhost
