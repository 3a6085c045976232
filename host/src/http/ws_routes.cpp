// WebSocket routes. The connection's request-handler thread is its I/O
// thread: it reads frames, answers PINGs and queues every request on the
// session's worker, which sends the reply. So a long step never delays a
// PONG, and replies leave in request order.
#include "http/http_util.h"
#include "http/routes.h"
#include "http/ws_connection.h"
#include "json_io.h"

#include <Poco/Net/NetException.h>
#include <Poco/Net/WebSocket.h>

#include <spdlog/spdlog.h>

namespace envhost::http {
namespace {

// Close codes (RFC 6455).
constexpr unsigned short kNormal = 1000;
constexpr unsigned short kGoingAway = 1001;
constexpr unsigned short kUnsupportedData = 1003;
constexpr unsigned short kPolicy = 1008;
constexpr unsigned short kTooBig = 1009;
constexpr unsigned short kInternal = 1011;
constexpr unsigned short kTryLater = 1013;

std::shared_ptr<WsConnection> upgrade(const ServerContext& ctx, Request& req, Response& resp) {
    try {
        Poco::Net::WebSocket ws(req, resp);
        return std::make_shared<WsConnection>(std::move(ws), ctx.config.max_message_bytes);
    } catch (const Poco::Net::WebSocketException& e) {
        if (!resp.sent()) send_detail(resp, 400, std::string("WebSocket handshake failed: ") + e.displayText());
        return nullptr;
    }
}

// How one connection kind reacts to the events of its socket.
struct Protocol {
    // Frame to send when the session cannot be opened.
    std::function<json(const Environment::OpenResult&)> open_failed;
    // Frame that ends the session on a fatal error (binary, too big, expired).
    std::function<json(const std::string& message)> fatal;
    // Handles one text message; returns false when the session should end
    // normally (the client asked to close).
    std::function<bool(const std::string& text, const std::shared_ptr<Session>&, const std::shared_ptr<WsConnection>&)> on_text;
};

void run_session(const ServerContext& ctx, ServedEnv& se, const std::shared_ptr<WsConnection>& conn, SessionKind kind, const Protocol& p) {
    auto opened = se.env->open_session(kind);
    if (opened.status != Environment::OpenStatus::Ok) {
        conn->send_json(p.open_failed(opened));
        conn->send_close(opened.status == Environment::OpenStatus::Capacity ? kTryLater : kInternal);
        return;
    }
    std::shared_ptr<Session> session = opened.session;
    // Ends the session from elsewhere (idle reaping, close by another
    // client, shutdown): tell the client, in order with earlier replies.
    session->set_expire_hook([conn, session, fatal = p.fatal](const std::string& reason) {
        const unsigned short code = reason.find("shutting down") != std::string::npos ? kGoingAway : kPolicy;
        session->post([conn, reason, code, fatal](envhost_instance*) {
            conn->send_json(fatal(reason));
            conn->send_close(code, "session ended");
            conn->shutdown();
        });
        session->close();
    });

    unsigned short close_code = kNormal;
    bool drain = true;
    std::string text;
    for (bool running = true; running;) {
        switch (conn->read_message(text)) {
        case WsConnection::ReadStatus::Text:
            running = p.on_text(text, session, conn);
            break;
        case WsConnection::ReadStatus::Binary:
            session->post([conn, m = p.fatal("Binary frames are not supported: send JSON text frames")](envhost_instance*) { conn->send_json(m); });
            close_code = kUnsupportedData;
            running = false;
            break;
        case WsConnection::ReadStatus::TooBig:
            session->post([conn, m = p.fatal("Message exceeds the limit of " + std::to_string(ctx.config.max_message_bytes) + " bytes")](envhost_instance*) { conn->send_json(m); });
            close_code = kTooBig;
            running = false;
            break;
        case WsConnection::ReadStatus::Closed:
            // The peer is gone or closing: queued work has no one to answer.
            drain = false;
            close_code = conn->broken() ? kNormal : (conn->close_code() == 1005 ? kNormal : conn->close_code());
            running = false;
            break;
        }
    }
    session->set_expire_hook(nullptr);
    session->close(drain);
    session->wait_finished(); // the instance is destroyed on its worker
    conn->send_close(close_code);
    // Unread input (the rest of an oversized or binary message) would make
    // the kernel reset the connection and drop our last frames.
    if (close_code == kTooBig || close_code == kUnsupportedData) conn->discard_input(2.0);
}

} // namespace

void ws_session(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    auto conn = upgrade(ctx, req, resp);
    if (!conn) return;
    Protocol p;
    p.open_failed = [](const Environment::OpenResult& r) {
        return ws_error_frame(r.status == Environment::OpenStatus::Capacity ? ws_error::kCapacity : ws_error::kFactory,
                              r.message, r.data);
    };
    p.fatal = [](const std::string& m) { return ws_error_frame(ws_error::kSession, m); };
    p.on_text = [&se](const std::string& text, const std::shared_ptr<Session>& session,
                      const std::shared_ptr<WsConnection>& c) {
        json msg;
        JsonParseError err;
        if (!parse_json(text, msg, err)) {
            session->post([c, m = ws_error_frame(ws_error::kInvalidJson, "Invalid JSON: " + err.message)](envhost_instance*) {
                c->send_json(m);
            });
            return true;
        }
        if (!msg.is_object()) {
            session->post([c, m = ws_error_frame(ws_error::kSession, "Message must be a JSON object")](envhost_instance*) {
                c->send_json(m);
            });
            return false;
        }
        if (classify_ws_message(msg) == WsMessageKind::Close) return false;
        ServedEnv* target = &se;
        session->post([target, c, session, msg = std::move(msg)](envhost_instance* inst) {
            if (inst) c->send_json(target->ws.handle(msg, *session, inst));
        });
        return true;
    };
    run_session(ctx, se, conn, SessionKind::WebSocket, p);
}

void mcp_websocket(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    auto conn = upgrade(ctx, req, resp);
    if (!conn) return;
    Protocol p;
    p.open_failed = [](const Environment::OpenResult& r) {
        return jsonrpc::error_response(nullptr, jsonrpc::kServerError, r.message, r.data);
    };
    p.fatal = [](const std::string& m) { return jsonrpc::error_response(nullptr, jsonrpc::kServerError, m); };
    p.on_text = [&se](const std::string& text, const std::shared_ptr<Session>& session,
                      const std::shared_ptr<WsConnection>& c) {
        ServedEnv* target = &se;
        session->post([target, c, session, text](envhost_instance* inst) {
            if (inst) c->send_json(target->mcp.handle_text(text, McpDispatcher::Binding{session.get(), inst}));
        });
        return true;
    };
    run_session(ctx, se, conn, SessionKind::McpWebSocket, p);
}

} // namespace envhost::http
