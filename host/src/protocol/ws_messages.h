// The /ws session protocol (section 4 of the protocol page): turns one
// request message into its reply frame.
//
// Threads: handle() runs on the session's worker thread with the session's
// instance. Stateless apart from the borrowed references.
#pragma once

#include "environment.h"
#include "mcp_dispatcher.h"

#include <nlohmann/json.hpp>

#include <string>

namespace envhost {

using json = nlohmann::json;

namespace ws_error {
constexpr const char* kInvalidJson = "INVALID_JSON";
constexpr const char* kUnknownType = "UNKNOWN_TYPE";
constexpr const char* kValidation = "VALIDATION_ERROR";
constexpr const char* kExecution = "EXECUTION_ERROR";
constexpr const char* kCapacity = "CAPACITY_REACHED";
constexpr const char* kFactory = "FACTORY_ERROR";
constexpr const char* kSession = "SESSION_ERROR";
} // namespace ws_error

// {"type":"error","data":{"message":…,"code":…, <extra>…}}
json ws_error_frame(const char* code, const std::string& message, const json& extra = json::object());

// A close request: type "close" (envhost also accepts {"type":"close","data":…}).
bool is_close_message(const json& message);

class WsMessageHandler {
public:
    WsMessageHandler(Environment& env, const McpDispatcher& mcp) : env_(env), mcp_(mcp) {}
    // The reply frame to one request object (never a close).
    json handle(const json& message, Session& session, envhost_instance* inst) const;

private:
    json reset(const json& message, envhost_instance* inst) const;
    json step(const json& message, envhost_instance* inst) const;
    json state(envhost_instance* inst) const;
    json mcp(const json& message, Session& session, envhost_instance* inst) const;
    json reply_or_error(CallResult r, const char* type) const;

    Environment& env_;
    const McpDispatcher& mcp_;
};

} // namespace envhost
