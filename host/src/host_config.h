// The host's configuration: command-line flags layered over an optional JSON
// file. Parsed once on the main thread at start; read-only afterwards.
#pragma once

#include "environment.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace envhost {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ServeMode { Simulation, Production };

struct HostConfig {
    std::string host = "127.0.0.1";
    unsigned port = 8000;
    ServeMode mode = ServeMode::Simulation;
    std::vector<std::string> plugin_dirs;
    std::optional<std::string> default_env;
    std::string log_level = "info";
    std::size_t max_message_bytes = 4 * 1024 * 1024; // request bodies and WS messages
    unsigned max_connections = 1024;                  // concurrent HTTP connections (threads)
    unsigned io_threads = 2;                          // reactor threads reading WebSocket sessions
    double shutdown_grace_s = 10;
    std::map<std::string, EnvSettings> environments;  // by environment name

    // Applies the keys of a JSON config document; unknown keys are errors so
    // typos do not pass silently. Throws ConfigError.
    void apply_file(const std::string& path);
    void apply_json(const nlohmann::json& doc);

    EnvSettings settings_for(const std::string& env_name) const;
};

ServeMode parse_mode(const std::string& s); // throws ConfigError

} // namespace envhost
