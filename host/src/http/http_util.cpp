#include "http_util.h"

#include <Poco/String.h>

#include <istream>

namespace envhost::http {

void send_json(Poco::Net::HTTPServerResponse& resp, int status, const json& body) {
    const std::string text = body.dump(-1, ' ', false, json::error_handler_t::replace);
    resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    resp.setContentType("application/json");
    resp.setContentLength(static_cast<std::streamsize>(text.size()));
    resp.send().write(text.data(), static_cast<std::streamsize>(text.size()));
}

void send_detail(Poco::Net::HTTPServerResponse& resp, int status, const std::string& message) {
    send_json(resp, status, json{{"detail", message}});
}

BodyStatus read_body(Poco::Net::HTTPServerRequest& req, std::size_t limit, std::string& out) {
    out.clear();
    if (req.hasContentLength() && req.getContentLength64() > static_cast<Poco::Int64>(limit)) return BodyStatus::TooLarge;
    std::istream& in = req.stream();
    char buf[16384];
    while (in) {
        in.read(buf, sizeof buf);
        out.append(buf, static_cast<std::size_t>(in.gcount()));
        if (out.size() > limit) return BodyStatus::TooLarge;
    }
    return BodyStatus::Ok;
}

bool is_websocket_upgrade(const Poco::Net::HTTPServerRequest& req) {
    return Poco::icompare(req.get("Upgrade", ""), "websocket") == 0;
}

} // namespace envhost::http
