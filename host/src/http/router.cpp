#include "http/router.h"

#include "http/http_util.h"
#include "http/routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/URI.h>

#include <spdlog/spdlog.h>

namespace envhost::http {
namespace {

using Poco::Net::HTTPRequest;

class RouteHandler : public Poco::Net::HTTPRequestHandler {
public:
    explicit RouteHandler(ServerContext& ctx) : ctx_(ctx) {}

    void handleRequest(Request& req, Response& resp) override {
        try {
            dispatch(req, resp);
        } catch (const std::exception& e) {
            spdlog::error("{} {}: {}", req.getMethod(), req.getURI(), e.what());
            if (!resp.sent()) send_detail(resp, 500, std::string("Internal server error: ") + e.what());
        }
    }

private:
    void dispatch(Request& req, Response& resp) {
        std::string path;
        try {
            path = Poco::URI(req.getURI()).getPath();
        } catch (const Poco::Exception&) {
            return send_detail(resp, 400, "Malformed request URI");
        }
        const std::string& method = req.getMethod();
        if (path == "/metrics") {
            if (method != HTTPRequest::HTTP_GET) return send_detail(resp, 405, "Method Not Allowed");
            return metrics(ctx_, resp);
        }
        if (path == "/envs") {
            if (method != HTTPRequest::HTTP_GET) return send_detail(resp, 405, "Method Not Allowed");
            return list_envs(ctx_, req, resp);
        }
        ServedEnv* se = ctx_.default_env;
        std::string route = path;
        bool under_envs = false;
        if (path.rfind("/envs/", 0) == 0) {
            const auto slash = path.find('/', 6);
            const std::string name = path.substr(6, slash == std::string::npos ? std::string::npos : slash - 6);
            se = ctx_.find(name);
            if (!se) return send_detail(resp, 404, "Unknown environment '" + name + "'");
            route = slash == std::string::npos ? "" : path.substr(slash);
            under_envs = true;
        }
        serve_route(route, se, under_envs, req, resp);
    }

    void serve_route(const std::string& route, ServedEnv* se, bool under_envs, Request& req, Response& resp) {
        const std::string& method = req.getMethod();
        const bool get = method == HTTPRequest::HTTP_GET;
        const bool post = method == HTTPRequest::HTTP_POST;
        const bool production = ctx_.config.mode == ServeMode::Production;
        auto not_allowed = [&] { send_detail(resp, 405, "Method Not Allowed"); };

        if (route == "/health") {
            if (!get) return not_allowed();
            return health(resp); // the host answers even with no default env
        }
        if (route == "/openapi.json") {
            if (!get) return not_allowed();
            return openapi(ctx_, under_envs ? se : nullptr, req, resp);
        }
        const bool known = route == "/metadata" || route == "/schema" || route == "/mcp" || route == "/ws" ||
                           (!production && (route == "/reset" || route == "/step" || route == "/state"));
        if (!known || !se) return send_detail(resp, 404, "Not Found");

        if (route == "/metadata") return get ? metadata(*se, resp) : not_allowed();
        if (route == "/schema") return get ? schema(*se, resp) : not_allowed();
        if (route == "/reset") return post ? reset(ctx_, *se, req, resp) : not_allowed();
        if (route == "/step") return post ? step(ctx_, *se, req, resp) : not_allowed();
        if (route == "/state") return get ? state(*se, resp) : not_allowed();
        if (route == "/mcp") {
            if (post) return mcp_post(ctx_, *se, req, resp);
            if (get && is_websocket_upgrade(req)) return mcp_websocket(ctx_, *se, req, resp);
            return not_allowed();
        }
        // route == "/ws"
        if (!get) return not_allowed();
        if (!is_websocket_upgrade(req)) return send_detail(resp, 426, "Upgrade Required: /ws is a WebSocket endpoint");
        return ws_session(ctx_, *se, req, resp);
    }

    ServerContext& ctx_;
};

} // namespace

Poco::Net::HTTPRequestHandler* RequestRouter::createRequestHandler(const Poco::Net::HTTPServerRequest&) {
    return new RouteHandler(ctx_);
}

} // namespace envhost::http
