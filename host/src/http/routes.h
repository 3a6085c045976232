// The HTTP routes, one function each. Called on Poco's request-handler thread
// for the connection; each writes exactly one response (or, for the
// WebSocket routes, runs the connection until it ends).
#pragma once

#include "http/server_context.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

namespace envhost::http {

using Request = Poco::Net::HTTPServerRequest;
using Response = Poco::Net::HTTPServerResponse;

// Host-level routes.
void list_envs(const ServerContext& ctx, Request& req, Response& resp);
void openapi(const ServerContext& ctx, const ServedEnv* only, Request& req, Response& resp);
void metrics(const ServerContext& ctx, Response& resp);

// Per-environment REST routes (section 3 of the protocol page).
void health(Response& resp);
void metadata(const ServedEnv& se, Response& resp);
void schema(const ServedEnv& se, Response& resp);
void reset(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp);
void step(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp);
void state(ServedEnv& se, Response& resp);
void mcp_post(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp);

// WebSocket routes: /ws (section 4) and /mcp (section 5).
void ws_session(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp);
void mcp_websocket(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp);

} // namespace envhost::http
