#include "host_config.h"

#include "json_io.h"

#include <fstream>
#include <sstream>

namespace envhost {
namespace {

template <class F>
void expect(bool ok, F&& message) {
    if (!ok) throw ConfigError(message());
}

double non_negative_number(const json& v, const std::string& key) {
    expect(v.is_number() && v.get<double>() >= 0, [&] { return "'" + key + "' must be a number >= 0"; });
    return v.get<double>();
}

unsigned positive_int(const json& v, const std::string& key) {
    expect(v.is_number_integer() && v.get<long long>() > 0 && v.get<long long>() <= 10000000,
           [&] { return "'" + key + "' must be a positive integer"; });
    return static_cast<unsigned>(v.get<long long>());
}

EnvSettings parse_env(const std::string& name, const json& j) {
    expect(j.is_object(), [&] { return "environments." + name + " must be an object"; });
    EnvSettings s;
    for (const auto& [key, v] : j.items()) {
        const std::string where = "environments." + name + "." + key;
        if (key == "max_sessions") s.max_sessions = positive_int(v, where);
        else if (key == "idle_timeout_s") s.idle_timeout_s = non_negative_number(v, where);
        else if (key == "config") {
            expect(v.is_object(), [&] { return "'" + where + "' must be an object"; });
            s.plugin_config = v;
        } else
            throw ConfigError("unknown key '" + where + "' (known: max_sessions, idle_timeout_s, config)");
    }
    return s;
}

} // namespace

ServeMode parse_mode(const std::string& s) {
    if (s == "simulation") return ServeMode::Simulation;
    if (s == "production") return ServeMode::Production;
    throw ConfigError("mode must be 'simulation' or 'production', not '" + s + "'");
}

void HostConfig::apply_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ConfigError("cannot read config file " + path);
    std::stringstream buf;
    buf << in.rdbuf();
    json doc;
    JsonParseError err;
    if (!parse_json(buf.str(), doc, err))
        throw ConfigError("config file " + path + " is not valid JSON: " + err.message);
    apply_json(doc);
}

void HostConfig::apply_json(const json& doc) {
    expect(doc.is_object(), [] { return std::string("the config must be a JSON object"); });
    for (const auto& [key, v] : doc.items()) {
        if (key == "host") {
            expect(v.is_string(), [] { return std::string("'host' must be a string"); });
            host = v.get<std::string>();
        } else if (key == "port") {
            expect(v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 65535,
                   [] { return std::string("'port' must be an integer 0-65535"); });
            port = v.get<unsigned>();
        } else if (key == "mode") {
            expect(v.is_string(), [] { return std::string("'mode' must be a string"); });
            mode = parse_mode(v.get<std::string>());
        } else if (key == "plugin_dirs") {
            expect(v.is_array(), [] { return std::string("'plugin_dirs' must be an array of strings"); });
            for (const auto& d : v) {
                expect(d.is_string(), [] { return std::string("'plugin_dirs' must be an array of strings"); });
                plugin_dirs.push_back(d.get<std::string>());
            }
        } else if (key == "default_env") {
            expect(v.is_string() || v.is_null(), [] { return std::string("'default_env' must be a string"); });
            if (v.is_string()) default_env = v.get<std::string>();
        } else if (key == "log_level") {
            expect(v.is_string(), [] { return std::string("'log_level' must be a string"); });
            log_level = v.get<std::string>();
        } else if (key == "max_message_bytes") {
            max_message_bytes = positive_int(v, key);
        } else if (key == "max_connections") {
            max_connections = positive_int(v, key);
        } else if (key == "io_threads") {
            io_threads = positive_int(v, key);
        } else if (key == "shutdown_grace_s") {
            shutdown_grace_s = non_negative_number(v, key);
        } else if (key == "environments") {
            expect(v.is_object(), [] { return std::string("'environments' must be an object"); });
            for (const auto& [name, e] : v.items()) environments[name] = parse_env(name, e);
        } else {
            throw ConfigError("unknown config key '" + key + "'");
        }
    }
}

EnvSettings HostConfig::settings_for(const std::string& env_name) const {
    auto it = environments.find(env_name);
    return it == environments.end() ? EnvSettings{} : it->second;
}

} // namespace envhost
