#include "ws_messages.h"

#include "request_models.h"

namespace envhost {
namespace {

json validation_error(json errors) {
    return ws_error_frame(ws_error::kValidation, "Invalid message", {{"errors", std::move(errors)}});
}

// Extra top-level keys are validation errors, as in the reference.
json extra_keys(const json& message, std::initializer_list<const char*> allowed) {
    json errors = json::array();
    for (const auto& item : message.items()) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || item.key() == a;
        if (!ok)
            errors.push_back({{"type", "extra_forbidden"}, {"loc", json::array({item.key()})},
                              {"msg", "Extra inputs are not permitted"}, {"input", item.value()}});
    }
    return errors;
}

json missing_data(const json& message) {
    return json::array({{{"type", "missing"}, {"loc", json::array({"data"})}, {"msg", "Field required"}, {"input", message}}});
}

} // namespace

json ws_error_frame(const char* code, const std::string& message, const json& extra) {
    json data = {{"message", message}, {"code", code}};
    for (const auto& item : extra.items()) data[item.key()] = item.value();
    return {{"type", "error"}, {"data", std::move(data)}};
}

bool is_close_message(const json& message) {
    return message.is_object() && message.contains("type") && message["type"] == "close";
}

json WsMessageHandler::handle(const json& message, Session& session, envhost_instance* inst) const {
    const json type = message.contains("type") ? message["type"] : json();
    const std::string t = type.is_string() ? type.get<std::string>() : "";
    if (t == "reset") return reset(message, inst);
    if (t == "step") return step(message, inst);
    if (t == "state") {
        json errors = extra_keys(message, {"type"});
        return errors.empty() ? state(inst) : validation_error(errors);
    }
    if (t == "mcp") return mcp(message, session, inst);
    const std::string shown = type.is_null() ? "None" : (type.is_string() ? t : type.dump());
    return ws_error_frame(ws_error::kUnknownType, "Unknown message type: " + shown);
}

json WsMessageHandler::reset(const json& message, envhost_instance* inst) const {
    json errors = extra_keys(message, {"type", "data"});
    if (!errors.empty()) return validation_error(errors);
    json options;
    errors = check_reset_options(message.value("data", json()), json::array({"data"}), options);
    if (!errors.empty()) return validation_error(errors);
    return reply_or_error(env_.plugin().reset(inst, options), "observation");
}

json WsMessageHandler::step(const json& message, envhost_instance* inst) const {
    json errors = extra_keys(message, {"type", "data"});
    if (!errors.empty()) return validation_error(errors);
    if (!message.contains("data")) return validation_error(missing_data(message));
    const json& action = message["data"];
    errors = env_.action_validator().validate(action);
    if (!errors.empty()) return validation_error(errors);
    return reply_or_error(env_.step(inst, action, 0), "observation");
}

json WsMessageHandler::state(envhost_instance* inst) const {
    return reply_or_error(env_.plugin().state(inst), "state");
}

json WsMessageHandler::mcp(const json& message, Session& session, envhost_instance* inst) const {
    json errors = extra_keys(message, {"type", "data"});
    if (!errors.empty()) return validation_error(errors);
    if (!message.contains("data")) return validation_error(missing_data(message));
    McpDispatcher::Binding binding{&session, inst};
    return {{"type", "mcp"}, {"data", mcp_.handle(message["data"], binding)}};
}

json WsMessageHandler::reply_or_error(CallResult r, const char* type) const {
    if (r.ok) return {{"type", type}, {"data", std::move(r.value)}};
    if (r.kind == ENVHOST_ERROR_VALIDATION)
        return validation_error(r.errors.is_array() ? r.errors : json::array({{{"type", "value_error"}, {"loc", json::array()}, {"msg", r.message}, {"input", nullptr}}}));
    return ws_error_frame(ws_error::kExecution, r.message);
}

} // namespace envhost
