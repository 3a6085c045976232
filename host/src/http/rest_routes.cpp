#include "http/http_util.h"
#include "http/routes.h"
#include "json_io.h"
#include "protocol/request_models.h"

namespace envhost::http {
namespace {

json json_invalid_detail(const JsonParseError& err) {
    return {{"detail", json::array({{{"type", "json_invalid"},
                                     {"loc", json::array({"body", err.byte_offset})},
                                     {"msg", "JSON decode error"},
                                     {"input", json::object()},
                                     {"ctx", {{"error", err.message}}}}})}};
}

// Reads and parses a JSON body; answers 413/422 itself and returns false on
// failure. An empty body yields `empty`.
bool read_json_body(const ServerContext& ctx, Request& req, Response& resp, json& out, const json& empty) {
    std::string body;
    if (read_body(req, ctx.config.max_message_bytes, body) == BodyStatus::TooLarge) {
        send_detail(resp, 413, "Request body exceeds the limit of " + std::to_string(ctx.config.max_message_bytes) + " bytes");
        return false;
    }
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
        out = empty;
        return true;
    }
    JsonParseError err;
    if (!parse_json(body, out, err)) {
        send_json(resp, 422, json_invalid_detail(err));
        return false;
    }
    return true;
}

// A fresh instance for one stateless call; answers 503/500 itself on failure.
std::unique_ptr<Environment::Ephemeral> ephemeral(Environment& env, Response& resp) {
    Environment::EphemeralStatus status;
    CallResult err;
    auto inst = env.open_ephemeral(status, err);
    if (status == Environment::EphemeralStatus::Busy)
        send_detail(resp, 503, "Environment '" + env.name() +
                                   "' is not concurrency-safe and its only instance is in use by a session; retry later");
    else if (!inst)
        send_detail(resp, 500, "Environment factory '" + env.name() + "' failed to create instance: " + err.message);
    return inst;
}

void send_call_result(Response& resp, CallResult r, bool observation) {
    if (r.ok) {
        send_json(resp, 200, observation ? http_observation(std::move(r.value)) : r.value);
    } else if (r.kind == ENVHOST_ERROR_VALIDATION) {
        send_json(resp, 422, {{"detail", r.errors.is_array() ? r.errors : json::array({{{"type", "value_error"}, {"loc", json::array()}, {"msg", r.message}, {"input", nullptr}}})}});
    } else {
        send_detail(resp, 500, r.message);
    }
}

} // namespace

void list_envs(const ServerContext& ctx, Request&, Response& resp) {
    json envs = json::array();
    for (const auto& se : ctx.envs) {
        const Environment& e = *se->env;
        json tools = json::array();
        for (const auto& t : e.descriptor().tools) tools.push_back(t.name);
        envs.push_back({{"name", e.name()},
                        {"version", e.descriptor().version},
                        {"description", e.descriptor().description},
                        {"concurrency_safe", e.descriptor().concurrency_safe},
                        {"active_sessions", e.active_sessions()},
                        {"max_sessions", e.max_sessions()},
                        {"tools", tools},
                        {"path", "/envs/" + e.name()}});
    }
    send_json(resp, 200, {{"environments", envs},
                          {"default", ctx.default_env ? json(ctx.default_env->env->name()) : json()}});
}

void health(Response& resp) { send_json(resp, 200, {{"status", "healthy"}}); }

void metadata(const ServedEnv& se, Response& resp) {
    const PluginDescriptor& d = se.env->descriptor();
    auto opt = [](const std::optional<std::string>& s) { return s ? json(*s) : json(); };
    send_json(resp, 200, {{"name", d.name}, {"description", d.description}, {"readme_content", opt(d.readme)},
                          {"version", d.version}, {"author", opt(d.author)}, {"documentation_url", opt(d.documentation_url)}});
}

void schema(const ServedEnv& se, Response& resp) {
    const PluginDescriptor& d = se.env->descriptor();
    send_json(resp, 200, {{"action", d.action_schema}, {"observation", d.observation_schema}, {"state", d.state_schema}});
}

void reset(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    json body;
    if (!read_json_body(ctx, req, resp, body, json::object())) return;
    json options;
    json errors = check_reset_options(body, json::array({"body"}), options);
    if (!errors.empty()) return send_json(resp, 422, {{"detail", errors}});
    auto inst = ephemeral(*se.env, resp);
    if (!inst) return;
    send_call_result(resp, se.env->plugin().reset(inst->get(), options), true);
}

void step(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    json body;
    if (!read_json_body(ctx, req, resp, body, json())) return;
    if (body.is_null() && req.getContentLength64() <= 0)
        return send_json(resp, 422, {{"detail", json::array({{{"type", "missing"}, {"loc", json::array({"body"})},
                                                              {"msg", "Field required"}, {"input", nullptr}}})}});
    StepRequest sr;
    json errors = check_step_request(body, sr);
    if (!errors.empty()) return send_json(resp, 422, {{"detail", errors}});
    // The action is validated before any instance exists.
    errors = se.env->action_validator().validate(sr.action);
    if (!errors.empty()) return send_json(resp, 422, {{"detail", errors}});
    auto inst = ephemeral(*se.env, resp);
    if (!inst) return;
    send_call_result(resp, se.env->step(inst->get(), sr.action, sr.timeout_s.value_or(0)), true);
}

void state(ServedEnv& se, Response& resp) {
    auto inst = ephemeral(*se.env, resp);
    if (!inst) return;
    send_call_result(resp, se.env->plugin().state(inst->get()), false);
}

void mcp_post(const ServerContext& ctx, ServedEnv& se, Request& req, Response& resp) {
    std::string body;
    if (read_body(req, ctx.config.max_message_bytes, body) == BodyStatus::TooLarge)
        return send_json(resp, 200, jsonrpc::error_response(nullptr, jsonrpc::kInvalidRequest,
                                                            "Invalid request: body exceeds the limit of " +
                                                                std::to_string(ctx.config.max_message_bytes) + " bytes"));
    send_json(resp, 200, se.mcp.handle_text(body, McpDispatcher::Binding{}));
}

} // namespace envhost::http
