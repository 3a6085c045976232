#include "http/ws_frame_decoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using envhost::WsFrameDecoder;
using Event = WsFrameDecoder::Event;

namespace {

// A client frame: masked, as RFC 6455 requires.
std::string frame(int opcode, const std::string& payload, bool fin = true, bool masked = true) {
    std::string f;
    f += static_cast<char>((fin ? 0x80 : 0) | opcode);
    const uint64_t n = payload.size();
    const char mask_bit = masked ? char(0x80) : 0;
    if (n < 126) {
        f += static_cast<char>(mask_bit | n);
    } else if (n < 65536) {
        f += static_cast<char>(mask_bit | 126);
        f += static_cast<char>(n >> 8);
        f += static_cast<char>(n & 0xff);
    } else {
        f += static_cast<char>(mask_bit | 127);
        for (int i = 7; i >= 0; --i) f += static_cast<char>((n >> (8 * i)) & 0xff);
    }
    const unsigned char key[4] = {0x12, 0x34, 0x56, 0x78};
    if (masked) f.append(reinterpret_cast<const char*>(key), 4);
    for (size_t i = 0; i < payload.size(); ++i) f += masked ? static_cast<char>(payload[i] ^ key[i & 3]) : payload[i];
    return f;
}

std::vector<Event> feed_all(WsFrameDecoder& d, const std::string& bytes, size_t chunk) {
    std::vector<Event> out;
    for (size_t i = 0; i < bytes.size(); i += chunk) d.feed(bytes.data() + i, std::min(chunk, bytes.size() - i), out);
    return out;
}

} // namespace

TEST(WsFrameDecoder, DecodesTextMessagesFedByteByByte) {
    const std::string big(70000, 'x'); // a 64-bit length
    const std::string mid(300, 'y');   // a 16-bit length
    const std::string bytes = frame(0x1, "{\"type\":\"state\"}") + frame(0x1, mid) + frame(0x1, big);
    for (size_t chunk : {size_t(1), size_t(7), bytes.size()}) {
        WsFrameDecoder d(1 << 20);
        auto out = feed_all(d, bytes, chunk);
        ASSERT_EQ(out.size(), 3u) << "chunk " << chunk;
        EXPECT_EQ(out[0].kind, Event::Text);
        EXPECT_EQ(out[0].payload, "{\"type\":\"state\"}");
        EXPECT_EQ(out[1].payload, mid);
        EXPECT_EQ(out[2].payload, big);
    }
}

TEST(WsFrameDecoder, ReassemblesFragmentsAroundControlFrames) {
    WsFrameDecoder d(1024);
    const std::string bytes = frame(0x1, "hel", false) + frame(0x9, "ping!") + frame(0x0, "lo", false) +
                              frame(0xA, "pong") + frame(0x0, " world", true);
    auto out = feed_all(d, bytes, 3);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].kind, Event::Ping);
    EXPECT_EQ(out[0].payload, "ping!");
    EXPECT_EQ(out[1].kind, Event::Text);
    EXPECT_EQ(out[1].payload, "hello world");
}

TEST(WsFrameDecoder, BinaryAndClose) {
    WsFrameDecoder d(1024);
    std::string close_payload = "\x03\xe8" "bye";
    auto out = feed_all(d, frame(0x2, "\x00\x01") + frame(0x8, close_payload) + frame(0x1, "ignored"), 64);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].kind, Event::Binary);
    EXPECT_EQ(out[1].kind, Event::Close);
    EXPECT_EQ(out[1].code, 1000);
    EXPECT_TRUE(d.finished());
}

TEST(WsFrameDecoder, RefusesOversizedMessagesFromTheHeader) {
    WsFrameDecoder d(100);
    std::vector<Event> out;
    const std::string header = frame(0x1, std::string(5000, 'z')).substr(0, 8); // header + mask only
    d.feed(header.data(), header.size(), out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].kind, Event::TooBig);
    // Fragments that add up past the limit are refused too.
    WsFrameDecoder f(100);
    auto out2 = feed_all(f, frame(0x1, std::string(60, 'a'), false) + frame(0x0, std::string(60, 'b')), 1000);
    ASSERT_EQ(out2.size(), 1u);
    EXPECT_EQ(out2[0].kind, Event::TooBig);
}

TEST(WsFrameDecoder, ProtocolErrors) {
    auto first_kind = [](const std::string& bytes) {
        WsFrameDecoder d(1 << 20);
        std::vector<Event> out;
        d.feed(bytes.data(), bytes.size(), out);
        return out.empty() ? -1 : int(out[0].kind);
    };
    EXPECT_EQ(first_kind(frame(0x1, "x", true, false)), Event::Protocol);           // unmasked
    EXPECT_EQ(first_kind(frame(0x0, "x")), Event::Protocol);                        // continuation of nothing
    EXPECT_EQ(first_kind(frame(0x9, "x", false)), Event::Protocol);                 // fragmented control frame
    EXPECT_EQ(first_kind(frame(0x9, std::string(126, 'p'))), Event::Protocol);      // control frame too long
    EXPECT_EQ(first_kind(frame(0x3, "x")), Event::Protocol);                        // reserved opcode
    EXPECT_EQ(first_kind(frame(0x1, "a", false) + frame(0x1, "b")), Event::Protocol); // new message inside one
    std::string rsv = frame(0x1, "x");
    rsv[0] = static_cast<char>(rsv[0] | 0x40);
    EXPECT_EQ(first_kind(rsv), Event::Protocol);                                    // compression bit, not negotiated
}
