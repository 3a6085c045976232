// Maps each request to its route: /envs, /envs/<name>/<route>, and the root
// paths (served by the default environment). One RequestRouter per server;
// Poco calls createRequestHandler from its acceptor thread and the handler
// on a pooled connection thread.
#pragma once

#include "http/server_context.h"

#include <Poco/Net/HTTPRequestHandlerFactory.h>

namespace envhost::http {

class RequestRouter : public Poco::Net::HTTPRequestHandlerFactory {
public:
    explicit RequestRouter(ServerContext& ctx) : ctx_(ctx) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& req) override;

private:
    ServerContext& ctx_;
};

} // namespace envhost::http
