#include "mcp_dispatcher.h"

#include "json_io.h"

#include <envhost/call_tool_result.hpp>

#include <future>

namespace envhost {

namespace jsonrpc {
json error_response(const json& id, int code, const std::string& message, json data) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}, {"data", std::move(data)}}}};
}
json result_response(const json& id, json result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}
} // namespace jsonrpc

namespace {

using namespace jsonrpc;

// Checks the JSON-RPC envelope; returns the reason it is invalid, or "".
std::string envelope_problem(const json& r) {
    if (!r.is_object()) return "request must be a JSON object";
    if (!r.contains("jsonrpc")) return "'jsonrpc' is required";
    if (r["jsonrpc"] != "2.0") return "'jsonrpc' must be \"2.0\"";
    if (!r.contains("method")) return "'method' is required";
    if (!r["method"].is_string()) return "'method' must be a string";
    if (r.contains("params") && !r["params"].is_object() && !r["params"].is_null()) return "'params' must be an object";
    if (r.contains("id") && !(r["id"].is_string() || r["id"].is_number_integer() || r["id"].is_null()))
        return "'id' must be a string, an integer or null";
    for (const auto& item : r.items())
        if (item.key() != "jsonrpc" && item.key() != "method" && item.key() != "params" && item.key() != "id")
            return "unexpected key '" + item.key() + "'";
    return "";
}

json valid_id(const json& r) {
    if (r.is_object() && r.contains("id") && (r["id"].is_string() || r["id"].is_number_integer())) return r["id"];
    return nullptr;
}

} // namespace

json McpDispatcher::handle_text(std::string_view text, const Binding& binding) const {
    json request;
    JsonParseError err;
    if (!parse_json(text, request, err)) return error_response(nullptr, kParseError, "Parse error", {{"detail", err.message}});
    return handle(request, binding);
}

json McpDispatcher::handle(const json& request, const Binding& binding) const {
    const json id = valid_id(request);
    const std::string problem = envelope_problem(request);
    if (!problem.empty()) return error_response(id, kInvalidRequest, "Invalid request: " + problem);
    const std::string method = request["method"].get<std::string>();
    const json params = request.contains("params") && request["params"].is_object() ? request["params"] : json::object();

    if (method == "openenv/session/create") return create_session(id, binding);
    if (method == "openenv/session/close") return close_session(id, params, binding);
    // A session named by the call (a bound connection uses its own instead).
    std::shared_ptr<Session> named;
    if (!binding.session && params.contains("session_id")) {
        const json& sid = params["session_id"];
        named = sid.is_string() ? env_.find_session(sid.get<std::string>()) : nullptr;
        if (!named)
            return error_response(id, kInvalidParams, "Unknown session_id: " + (sid.is_string() ? sid.get<std::string>() : sid.dump()));
        named->touch(); // session-bound MCP calls count as activity
    }
    if (method == "tools/list") return list_tools(id);
    if (method == "tools/call") return call_tool(id, params, binding, named);
    return error_response(id, kMethodNotFound, "Method not found: " + method);
}

json McpDispatcher::create_session(const json& id, const Binding& binding) const {
    if (binding.session) return result_response(id, {{"session_id", binding.session->id()}});
    auto opened = env_.open_session();
    if (opened.status != Environment::OpenStatus::Ok) return error_response(id, kServerError, opened.message, opened.data);
    return result_response(id, {{"session_id", opened.session->id()}});
}

json McpDispatcher::close_session(const json& id, const json& params, const Binding& binding) const {
    if (!params.contains("session_id") || params["session_id"].is_null())
        return error_response(id, kInvalidParams, "Invalid params - 'session_id' is required");
    if (!params["session_id"].is_string())
        return error_response(id, kInvalidParams, "Invalid params - 'session_id' must be a string");
    const std::string sid = params["session_id"].get<std::string>();
    if (binding.session && binding.session->id() == sid)
        return error_response(id, kInvalidRequest,
                              "Cannot close the session bound to this WebSocket connection; close the connection instead");
    auto session = env_.find_session(sid);
    if (!session) return error_response(id, kInvalidParams, "Unknown session_id: " + sid);
    session->expire("Session closed by openenv/session/close");
    return result_response(id, {{"session_id", sid}, {"closed", true}});
}

json McpDispatcher::list_tools(const json& id) const {
    if (!env_.has_tools()) return error_response(id, kInternalError, "Environment does not support MCP");
    json tools = json::array();
    for (const auto& t : env_.descriptor().tools)
        tools.push_back({{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}});
    return result_response(id, {{"tools", tools}});
}

json McpDispatcher::call_tool(const json& id, const json& params, const Binding& binding,
                               const std::shared_ptr<Session>& named) const {
    if (!env_.has_tools()) return error_response(id, kInternalError, "Environment does not support MCP");
    if (!params.contains("name") || params["name"].is_null())
        return error_response(id, kInvalidParams, "Missing 'name' in params");
    if (!params["name"].is_string()) return error_response(id, kInvalidParams, "Invalid params - 'name' must be a string");
    const std::string tool = params["name"].get<std::string>();
    if (!env_.descriptor().find_tool(tool)) return error_response(id, kInvalidParams, "Tool not found: " + tool);
    json args = params.contains("arguments") && !params["arguments"].is_null() ? params["arguments"] : json::object();
    if (!args.is_object()) return error_response(id, kInvalidParams, "Invalid params - 'arguments' must be an object");

    if (binding.session) {
        if (!binding.instance) return error_response(id, kServerError, "Session is closed");
        return run_tool(id, tool, args, binding.instance);
    }
    if (named) {
        const std::string sid = named->id();
        auto promise = std::make_shared<std::promise<json>>();
        auto answer = promise->get_future();
        const bool queued = named->post([this, promise, id, tool, args, sid](envhost_instance* inst) {
            promise->set_value(inst ? run_tool(id, tool, args, inst)
                                    : error_response(id, kServerError, "Session " + sid + " was closed before the call ran"));
        });
        if (!queued) return error_response(id, kServerError, "Session " + sid + " is closed");
        return answer.get();
    }
    Environment::EphemeralStatus status;
    CallResult err;
    auto instance = env_.open_ephemeral(status, err);
    if (status == Environment::EphemeralStatus::Busy)
        return error_response(id, kServerError, "Environment '" + env_.name() +
                              "' is not concurrency-safe and its only instance is in use",
                              {{"active_sessions", env_.active_sessions()}, {"max_sessions", env_.max_sessions()}});
    if (!instance)
        return error_response(id, kServerError, "Environment factory '" + env_.name() + "' failed to create instance.",
                              {{"factory_name", env_.name()}, {"reason", err.message}});
    return run_tool(id, tool, args, instance->get());
}

json McpDispatcher::run_tool(const json& id, const std::string& tool, const json& args, envhost_instance* inst) const {
    CallResult r = env_.call_tool(inst, tool, args);
    if (r.ok) return result_response(id, call_tool_result(r.value));
    switch (r.kind) {
    case ENVHOST_ERROR_TOOL_NOT_FOUND: return error_response(id, kInvalidParams, "Tool not found: " + tool);
    case ENVHOST_ERROR_INVALID_ARGS:
    case ENVHOST_ERROR_VALIDATION:
        return error_response(id, kInvalidParams, "Invalid params - " + r.message, r.errors);
    default: return error_response(id, kInternalError, r.message);
    }
}

} // namespace envhost
