// MCP JSON-RPC 2.0 for one environment (section 5 of the protocol page):
// openenv/session/create, openenv/session/close, tools/list, tools/call.
// Shared by POST /mcp, WS /mcp and the /ws `mcp` message.
//
// Ownership: borrows the Environment, which outlives it.
// Threads: handle() is thread-safe. When the call is bound to a session it
// must run on that session's worker thread (binding.instance is used
// directly); calls naming params.session_id are posted to that session's
// worker and waited for.
#pragma once

#include "environment.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace envhost {

using json = nlohmann::json;

namespace jsonrpc {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerError = -32000;

json error_response(const json& id, int code, const std::string& message, json data = nullptr);
json result_response(const json& id, json result);
} // namespace jsonrpc

class McpDispatcher {
public:
    // The caller's own session, when the request arrived on a session
    // connection (WS /mcp or /ws), with its instance (we are on its worker).
    struct Binding {
        Session* session = nullptr;
        envhost_instance* instance = nullptr;
    };

    explicit McpDispatcher(Environment& env) : env_(env) {}

    // Parses one JSON-RPC request text and answers it (parse errors too).
    json handle_text(std::string_view text, const Binding& binding) const;
    // Answers one parsed request; every request gets a response.
    json handle(const json& request, const Binding& binding) const;

private:
    json create_session(const json& id, const Binding& binding) const;
    json close_session(const json& id, const json& params, const Binding& binding) const;
    json list_tools(const json& id) const;
    json call_tool(const json& id, const json& params, const Binding& binding,
                   const std::shared_ptr<Session>& named) const;
    json run_tool(const json& id, const std::string& tool, const json& args, envhost_instance* inst) const;

    Environment& env_;
};

} // namespace envhost
