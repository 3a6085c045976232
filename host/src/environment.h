// An environment being served: a loaded plugin, its settings, its action
// validator and its live sessions.
//
// Capacity: every live instance that must be exclusive holds a slot. Sessions
// (WS /ws, WS /mcp, HTTP-created MCP sessions) always hold one; a stateless
// HTTP call holds one only when the plugin is not concurrency-safe, so such a
// plugin never has two live instances.
//
// Ownership: owns the sessions registry (shared_ptrs) and keeps the plugin
// library alive. Threads: all public functions are thread-safe, except
// start()/stop(), which the main thread calls once.
#pragma once

#include "action_validator.h"
#include "plugin_library.h"
#include "session.h"

#include <spdlog/logger.h>

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace envhost {

// Monotonic counters for GET /metrics. Relaxed atomics: read for reporting only.
struct EnvCounters {
    std::atomic<uint64_t> sessions_opened{0};
    std::atomic<uint64_t> sessions_refused_capacity{0};
    std::atomic<uint64_t> sessions_failed_factory{0};
    std::atomic<uint64_t> sessions_reaped_idle{0};
    std::atomic<uint64_t> steps{0};       // WS and HTTP steps that reached the plugin
    std::atomic<uint64_t> step_errors{0}; // of those, the ones the plugin failed
    std::atomic<uint64_t> tool_calls{0};  // MCP tools/call that reached the plugin
};

struct EnvSettings {
    unsigned max_sessions = 0;  // 0: the plugin's default
    double idle_timeout_s = 0;  // 0: never reap
    json plugin_config = json::object();
};

class Environment {
public:
    Environment(std::shared_ptr<PluginLibrary> plugin, EnvSettings settings);
    ~Environment();

    const PluginDescriptor& descriptor() const { return plugin_->descriptor(); }
    const std::string& name() const { return plugin_->descriptor().name; }
    const PluginLibrary& plugin() const { return *plugin_; }
    const ActionValidator& action_validator() const { return *action_validator_; }
    unsigned max_sessions() const { return max_sessions_; }
    unsigned active_sessions() const;
    double idle_timeout_s() const { return settings_.idle_timeout_s; }
    bool has_tools() const { return !descriptor().tools.empty(); }

    // Calls the plugin's start hook. Returns false with the reason on refusal.
    bool start(std::string& error);
    // Expires every session, waits for their instances to be destroyed (up
    // to grace_s), then calls the plugin's stop hook.
    void stop(double grace_s);

    // ---- sessions ----
    enum class OpenStatus { Ok, Capacity, Factory };
    struct OpenResult {
        OpenStatus status = OpenStatus::Ok;
        std::shared_ptr<Session> session;
        std::string message; // protocol message for CAPACITY_REACHED / FACTORY_ERROR
        json data;           // extra error data: active/max sessions or factory_name
    };
    OpenResult open_session();
    std::shared_ptr<Session> find_session(const std::string& id) const;
    void expire_idle_sessions();

    // ---- stateless calls: an instance for one request, on the caller's thread ----
    class Ephemeral {
    public:
        Ephemeral(Environment& env, envhost_instance* inst, bool holds_slot);
        ~Ephemeral();
        Ephemeral(const Ephemeral&) = delete;
        Ephemeral& operator=(const Ephemeral&) = delete;
        envhost_instance* get() const { return inst_; }

    private:
        Environment& env_;
        envhost_instance* inst_;
        bool holds_slot_;
    };
    enum class EphemeralStatus { Ok, Busy, Factory };
    // Busy: the plugin is not concurrency-safe and its one instance is live.
    std::unique_ptr<Ephemeral> open_ephemeral(EphemeralStatus& status, CallResult& error);

    // ---- plugin calls that are counted for /metrics (instance's thread rules apply) ----
    CallResult step(envhost_instance* inst, const json& action, double timeout_s) const;
    CallResult call_tool(envhost_instance* inst, const std::string& tool, const json& args) const;

    // ---- used by Session, on its worker thread ----
    envhost_instance* create_instance(CallResult& error);
    void destroy_instance(envhost_instance* inst);
    void session_finished(const Session& s);

    // Host services handed to this environment's plugin.
    const envhost_host* host_services() const { return &host_services_; }
    EnvCounters& counters() const { return counters_; }
    spdlog::logger& log() const { return *log_; }

private:
    bool reserve_slot();
    void release_slot();

    std::shared_ptr<PluginLibrary> plugin_;
    EnvSettings settings_;
    unsigned max_sessions_;
    std::string config_json_;
    std::unique_ptr<ActionValidator> action_validator_;
    std::shared_ptr<spdlog::logger> log_;
    envhost_host host_services_{};
    mutable EnvCounters counters_;
    bool started_ = false;
    bool stopped_ = false;

    mutable std::mutex mu_;
    std::condition_variable all_finished_;
    unsigned slots_used_ = 0;
    std::map<std::string, std::shared_ptr<Session>> sessions_;
};

} // namespace envhost
