// WebSocket routes. The upgrade happens on Poco's request thread, which then
// hands the socket to the WsReactor and returns to the pool: from then on a
// session costs one thread, its environment worker. The reactor reads frames
// (answering PINGs at once) and queues each message on the worker, which
// parses it, calls the plugin and sends the reply, so replies leave in request
// order and a long step never delays a PONG or another session.
#include "http/http_util.h"
#include "http/routes.h"
#include "http/ws_connection.h"
#include "http/ws_reactor.h"
#include "json_io.h"

#include <Poco/Net/NetException.h>
#include <Poco/Net/WebSocket.h>

#include <atomic>
#include <chrono>

namespace envhost::http {
namespace {

using Clock = std::chrono::steady_clock;

// Close codes (RFC 6455).
constexpr unsigned short kNormal = 1000;
constexpr unsigned short kGoingAway = 1001;
constexpr unsigned short kProtocolError = 1002;
constexpr unsigned short kUnsupportedData = 1003;
constexpr unsigned short kPolicy = 1008;
constexpr unsigned short kTooBig = 1009;
constexpr unsigned short kInternal = 1011;
constexpr unsigned short kTryLater = 1013;

// How long a closing connection keeps reading (and dropping) what the peer
// still sends, so that closing the socket does not reset the connection
// before the peer has read our last frames.
constexpr auto kLinger = std::chrono::seconds(2);

class SessionChannel;

// What differs between /ws and WS /mcp.
struct Protocol {
    // The frame sent when the session cannot be opened.
    json (*open_failed)(const Environment::OpenResult&);
    // The frame that tells the client why its session ends.
    json (*fatal)(const std::string& message);
    // Handles one text message on the session's worker (inst is never null).
    void (*on_text)(const std::string& text, SessionChannel& ch, Session& session, envhost_instance* inst);
};

// One session's connection as the reactor sees it.
class SessionChannel : public WsReactor::Channel, public std::enable_shared_from_this<SessionChannel> {
public:
    SessionChannel(ServedEnv& se, std::shared_ptr<WsConnection> conn, std::shared_ptr<Session> session,
                   const Protocol& protocol, std::size_t limit)
        : se_(se), conn_(std::move(conn)), session_(std::move(session)), protocol_(protocol), limit_(limit) {
        if (!session_) closed_now(); // nothing to run: only linger
    }

    // Wires the session's hooks; call once, before the reactor sees the channel.
    void attach() {
        std::weak_ptr<SessionChannel> weak = shared_from_this();
        // Ended from elsewhere (idle reaping, openenv/session/close, shutdown).
        session_->set_expire_hook([weak](const std::string& reason, bool shutdown) {
            if (auto self = weak.lock()) self->fail(reason, shutdown ? kGoingAway : kPolicy);
        });
        // The instance is gone: say goodbye and start lingering.
        session_->set_finished_hook([self = shared_from_this()] {
            self->conn_->send_close(self->close_code_.load());
            self->conn_->shutdown_send();
            self->closed_now();
        });
    }

    int fd() const override { return conn_->fd(); }

    bool on_readable() override {
        std::vector<WsFrameDecoder::Event> events;
        const auto status = conn_->read_available(events);
        for (auto& e : events) {
            if (state_.load() != Open) break; // closing: drop the rest
            switch (e.kind) {
            case WsFrameDecoder::Event::Text: {
                auto self = shared_from_this();
                session_->post([self, text = std::move(e.payload)](envhost_instance* inst) {
                    if (inst) self->protocol_.on_text(text, *self, *self->session_, inst);
                });
                break;
            }
            case WsFrameDecoder::Event::Binary:
                fail("Binary frames are not supported: send JSON text frames", kUnsupportedData, true);
                break;
            case WsFrameDecoder::Event::TooBig:
                fail("Message exceeds the limit of " + std::to_string(limit_) + " bytes", kTooBig, true);
                break;
            case WsFrameDecoder::Event::Protocol:
                fail("Malformed WebSocket frame", kProtocolError, true);
                break;
            case WsFrameDecoder::Event::Close:
                end(e.code == 1005 ? kNormal : e.code, false); // the peer is leaving: no one to answer
                break;
            case WsFrameDecoder::Event::Ping: break; // answered by the connection
            }
        }
        if (status == WsConnection::ReadStatus::Eof) {
            end(kNormal, false); // the peer vanished
            return false;
        }
        return true;
    }

    bool on_tick(Clock::time_point now) override {
        return !(state_.load() == Closed && now - Clock::time_point(Clock::duration(closed_at_.load())) > kLinger);
    }

    // Ends the session: queued work runs (drain) or is dropped, then the
    // instance is destroyed on the worker and the finished hook closes.
    void end(unsigned short code, bool drain) {
        int expected = Open;
        if (!state_.compare_exchange_strong(expected, Ending)) return;
        close_code_ = code;
        session_->close(drain);
    }

    // Ends the session telling the client why, after the replies it is owed.
    void fail(const std::string& why, unsigned short code, bool drain = false) {
        if (state_.load() != Open) return;
        session_->post([conn = conn_, frame = protocol_.fatal(why)](envhost_instance*) { conn->send_json(frame); });
        end(code, drain);
    }

    WsConnection& conn() { return *conn_; }
    ServedEnv& env() { return se_; }

private:
    enum State { Open, Ending, Closed };
    void closed_now() {
        closed_at_ = Clock::now().time_since_epoch().count();
        state_ = Closed;
    }

    ServedEnv& se_;
    std::shared_ptr<WsConnection> conn_;
    std::shared_ptr<Session> session_;
    const Protocol& protocol_;
    const std::size_t limit_;
    std::atomic<int> state_{Open};
    std::atomic<unsigned short> close_code_{kNormal};
    std::atomic<Clock::rep> closed_at_{0};
};

std::shared_ptr<WsConnection> upgrade(const ServerContext& ctx, Request& req, Response& resp) {
    try {
        Poco::Net::WebSocket ws(req, resp);
        return std::make_shared<WsConnection>(std::move(ws), ctx.config.max_message_bytes);
    } catch (const Poco::Net::WebSocketException& e) {
        if (!resp.sent()) send_detail(resp, 400, std::string("WebSocket handshake failed: ") + e.displayText());
        return nullptr;
    }
}

void serve(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp, const Protocol& p) {
    auto conn = upgrade(ctx, req, resp);
    if (!conn) return;
    auto opened = se.env->open_session();
    if (opened.status != Environment::OpenStatus::Ok) {
        conn->send_json(p.open_failed(opened));
        conn->send_close(opened.status == Environment::OpenStatus::Capacity ? kTryLater : kInternal);
        conn->shutdown_send();
        ctx.reactor->add(std::make_shared<SessionChannel>(se, conn, nullptr, p, ctx.config.max_message_bytes));
        return;
    }
    auto channel = std::make_shared<SessionChannel>(se, conn, opened.session, p, ctx.config.max_message_bytes);
    channel->attach();
    ctx.reactor->add(channel);
}

// /ws: the session protocol of section 4.
void ws_text(const std::string& text, SessionChannel& ch, Session& session, envhost_instance* inst) {
    json msg;
    JsonParseError err;
    if (!parse_json(text, msg, err)) {
        ch.conn().send_json(ws_error_frame(ws_error::kInvalidJson, "Invalid JSON: " + err.message));
        return;
    }
    if (!msg.is_object()) {
        ch.conn().send_json(ws_error_frame(ws_error::kSession, "Message must be a JSON object"));
        ch.end(kUnsupportedData, false);
        return;
    }
    // Handled in order, so every earlier request has had its reply.
    if (is_close_message(msg)) return ch.end(kNormal, false);
    ch.conn().send_json(ch.env().ws.handle(msg, session, inst));
}

const Protocol kWsProtocol = {
    [](const Environment::OpenResult& r) {
        return ws_error_frame(r.status == Environment::OpenStatus::Capacity ? ws_error::kCapacity : ws_error::kFactory,
                              r.message, r.data);
    },
    [](const std::string& m) { return ws_error_frame(ws_error::kSession, m); },
    &ws_text,
};

// WS /mcp: one JSON-RPC request per message, bound to the connection's session.
const Protocol kMcpProtocol = {
    [](const Environment::OpenResult& r) { return jsonrpc::error_response(nullptr, jsonrpc::kServerError, r.message, r.data); },
    [](const std::string& m) { return jsonrpc::error_response(nullptr, jsonrpc::kServerError, m); },
    [](const std::string& text, SessionChannel& ch, Session& session, envhost_instance* inst) {
        ch.conn().send_json(ch.env().mcp.handle_text(text, McpDispatcher::Binding{&session, inst}));
    },
};

} // namespace

void ws_session(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    serve(ctx, se, req, resp, kWsProtocol);
}

void mcp_websocket(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    serve(ctx, se, req, resp, kMcpProtocol);
}

} // namespace envhost::http
