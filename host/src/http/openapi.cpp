// GET /openapi.json: an OpenAPI 3.1 document built from the loaded plugins'
// schemas. /envs/<name>/openapi.json describes one environment with paths
// relative to its base URL (what `openenv validate <base>` reads); the root
// document describes the root paths (when a default env is served) and every
// /envs/<name>/ path.
#include "http/http_util.h"
#include "http/routes.h"

namespace envhost::http {
namespace {

json json_body(const json& schema) {
    return {{"required", true}, {"content", {{"application/json", {{"schema", schema}}}}}};
}

json ok(const json& schema, const std::string& what) {
    json r = {{"200", {{"description", what}, {"content", {{"application/json", {{"schema", schema}}}}}}}};
    r["422"] = {{"description", "Validation Error"}};
    return r;
}

json observation_response(const PluginDescriptor& d) {
    return {{"type", "object"},
            {"required", json::array({"observation"})},
            {"properties", {{"observation", d.observation_schema},
                            {"reward", {{"anyOf", json::array({{{"type", "number"}}, {{"type", "null"}}})}}},
                            {"done", {{"type", "boolean"}, {"default", false}}}}}};
}

void add_env_paths(json& paths, const std::string& prefix, const PluginDescriptor& d, ServeMode mode) {
    const std::string tag = d.name;
    auto op = [&](const std::string& summary, json responses) {
        return json{{"summary", summary}, {"tags", json::array({tag})}, {"responses", std::move(responses)}};
    };
    paths[prefix + "/health"]["get"] = op("Health check", ok({{"type", "object"}}, "Healthy"));
    paths[prefix + "/metadata"]["get"] = op("Environment metadata", ok({{"type", "object"}}, "Metadata"));
    paths[prefix + "/schema"]["get"] = op("Action, observation and state JSON Schemas", ok({{"type", "object"}}, "Schemas"));
    json mcp = op("MCP JSON-RPC 2.0 (always HTTP 200)", ok({{"type", "object"}}, "JSON-RPC response"));
    mcp["requestBody"] = json_body({{"type", "object"}});
    paths[prefix + "/mcp"]["post"] = mcp;
    if (mode == ServeMode::Simulation) {
        json reset = op("Reset a fresh environment (stateless)", ok(observation_response(d), "Observation"));
        reset["requestBody"] = json_body({{"$ref", "#/components/schemas/ResetRequest"}});
        reset["requestBody"]["required"] = false;
        paths[prefix + "/reset"]["post"] = reset;
        json step_schema = {{"type", "object"}, {"required", json::array({"action"})}, {"additionalProperties", true},
                            {"properties", {{"action", d.action_schema},
                                            {"timeout_s", {{"anyOf", json::array({{{"type", "number"}, {"exclusiveMinimum", 0}}, {{"type", "null"}}})}}},
                                            {"request_id", {{"anyOf", json::array({{{"type", "string"}, {"maxLength", 255}}, {{"type", "null"}}})}}}}}};
        json step = op("Step a fresh environment (stateless)", ok(observation_response(d), "Observation"));
        step["requestBody"] = json_body(step_schema);
        paths[prefix + "/step"]["post"] = step;
        paths[prefix + "/state"]["get"] = op("State of a fresh environment", ok(d.state_schema, "State"));
    }
}

json components() {
    return {{"schemas",
             {{"ResetRequest",
               {{"type", "object"}, {"additionalProperties", true},
                {"properties", {{"seed", {{"anyOf", json::array({{{"type", "integer"}, {"minimum", 0}}, {{"type", "null"}}})}}},
                                {"episode_id", {{"anyOf", json::array({{{"type", "string"}, {"maxLength", 255}}, {{"type", "null"}}})}}}}}}}}}};
}

} // namespace

void openapi(const ServerContext& ctx, const ServedEnv* only, Request&, Response& resp) {
    json doc = {{"openapi", "3.1.0"}, {"info", {{"title", "envhost"}, {"version", "1.0.0"}}}, {"paths", json::object()},
                {"components", components()}};
    json& paths = doc["paths"];
    if (only) {
        doc["info"]["title"] = only->env->name();
        doc["info"]["description"] = only->env->descriptor().description;
        doc["servers"] = json::array({{{"url", "/envs/" + only->env->name()}}});
        add_env_paths(paths, "", only->env->descriptor(), ctx.config.mode);
    } else {
        doc["info"]["description"] = "envhost: OpenEnv environments served from plugins";
        paths["/envs"]["get"] = {{"summary", "List the served environments"}, {"responses", ok({{"type", "object"}}, "Environments")}};
        paths["/metrics"]["get"] = {{"summary", "Prometheus metrics per environment"},
                                    {"responses", {{"200", {{"description", "text/plain; version=0.0.4"}}}}}};
        if (ctx.default_env) add_env_paths(paths, "", ctx.default_env->env->descriptor(), ctx.config.mode);
        else paths["/health"]["get"] = {{"summary", "Health check"}, {"responses", ok({{"type", "object"}}, "Healthy")}};
        for (const auto& se : ctx.envs) add_env_paths(paths, "/envs/" + se->env->name(), se->env->descriptor(), ctx.config.mode);
    }
    send_json(resp, 200, doc);
}

} // namespace envhost::http
