// One loaded plugin library: the Boost.DLL handle, the ABI table it exported,
// and its descriptor copied into C++ types.
//
// Ownership: PluginLibrary owns the library handle; it must outlive every
// instance created through it (the Environment guarantees that).
// Threads: descriptor() and the immutable members are safe from any thread;
// the instance calls must follow the ABI's [session-thread] rule — the caller
// (Session, or a stateless request on its own thread) guarantees it.
#pragma once

#include <envhost/plugin.h>

#include <boost/dll/shared_library.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace envhost {

using json = nlohmann::json;

// Why a file was not loaded as a plugin; the scanner logs it and moves on.
struct PluginLoadError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ToolInfo {
    std::string name;
    std::string description;
    json input_schema;
};

struct PluginDescriptor {
    std::string name, version, description;
    std::optional<std::string> author, documentation_url, readme;
    bool concurrency_safe = false;
    unsigned default_max_sessions = 1;
    json action_schema, observation_schema, state_schema;
    std::vector<ToolInfo> tools;

    const ToolInfo* find_tool(const std::string& tool) const;
};

// The outcome of one plugin call: a JSON value, or an error as data.
struct CallResult {
    bool ok = false;
    json value;
    envhost_error_kind kind = ENVHOST_ERROR_EXECUTION;
    std::string message;
    json errors; // pydantic-style list for validation errors, else null

    static CallResult failure(envhost_error_kind k, std::string msg, json errs = nullptr);
};

class PluginLibrary {
public:
    // Loads the file and checks the entry symbol, ABI version, table and
    // descriptor. Throws PluginLoadError with the reason.
    static std::shared_ptr<PluginLibrary> load(const std::string& path);

    const PluginDescriptor& descriptor() const { return descriptor_; }
    const std::string& path() const { return path_; }
    bool has_start() const { return table_->start != nullptr; }

    // ABI calls. Thread rules as in <envhost/plugin.h>.
    CallResult start(const envhost_host* host, const std::string& config_json) const;
    void stop() const;
    envhost_instance* create(const envhost_host* host, const std::string& config_json,
                             CallResult& error) const;
    CallResult reset(envhost_instance* inst, const json& options) const;
    CallResult step(envhost_instance* inst, const json& action, double timeout_s) const;
    CallResult state(envhost_instance* inst) const;
    CallResult call_tool(envhost_instance* inst, const std::string& tool, const json& args) const;
    void destroy(envhost_instance* inst) const;

private:
    PluginLibrary() = default;

    boost::dll::shared_library lib_;
    const envhost_plugin* table_ = nullptr;
    PluginDescriptor descriptor_;
    std::string path_;
};

} // namespace envhost
