// Everything the HTTP layer serves: the host configuration and the loaded
// environments, each with its protocol handlers. Built on the main thread
// before the server starts; read-only (apart from each Environment's own
// synchronised state) while it runs.
#pragma once

#include "environment.h"
#include "host_config.h"
#include "protocol/mcp_dispatcher.h"
#include "protocol/ws_messages.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace envhost {

struct ServedEnv {
    explicit ServedEnv(std::shared_ptr<Environment> e) : env(std::move(e)), mcp(*env), ws(*env, mcp) {}
    std::shared_ptr<Environment> env;
    McpDispatcher mcp;
    WsMessageHandler ws;
};

class WsReactor;

struct ServerContext {
    HostConfig config;
    WsReactor* reactor = nullptr;                 // reads every WebSocket session's socket
    std::vector<std::unique_ptr<ServedEnv>> envs; // in load order
    ServedEnv* default_env = nullptr;             // served at the root paths too

    ServedEnv* find(const std::string& name) const {
        for (const auto& e : envs)
            if (e->env->name() == name) return e.get();
        return nullptr;
    }
};

} // namespace envhost
