// envhost C++ SDK: header-only layer over the C ABI in <envhost/plugin.h>.
//
// A plugin is a class deriving from envhost::Environment plus one line:
//
//     ENVHOST_PLUGIN(MyEnv, my_env_info())
//
// where my_env_info() returns an envhost::PluginInfo. The macro defines the
// exported entry symbol; every exception thrown by the class is caught at the
// boundary and turned into an error reply (no exception crosses the ABI).
//
// Threads: the host creates, calls and destroys each instance on one worker
// thread; an instance never sees two calls at once. Only set
// concurrency_safe when separate instances share no unsynchronised state.
// Ownership: the SDK owns the descriptor strings for the library's lifetime;
// instances are owned by the host through create/destroy.
#pragma once

#include <envhost/call_tool_result.hpp>
#include <envhost/plugin.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace envhost {

using json = nlohmann::json;

// ---- Errors a plugin throws --------------------------------------------------

struct Error : std::runtime_error {
    envhost_error_kind kind;
    json errors; // pydantic-style list for validation errors, else null
    Error(envhost_error_kind k, const std::string& msg, json errs = nullptr)
        : std::runtime_error(msg), kind(k), errors(std::move(errs)) {}
};
struct ValidationError : Error {
    explicit ValidationError(json errs, const std::string& msg = "Invalid message")
        : Error(ENVHOST_ERROR_VALIDATION, msg, std::move(errs)) {}
};
struct ExecutionError : Error {
    explicit ExecutionError(const std::string& msg) : Error(ENVHOST_ERROR_EXECUTION, msg) {}
};
struct FactoryError : Error {
    explicit FactoryError(const std::string& msg) : Error(ENVHOST_ERROR_FACTORY, msg) {}
};
struct ToolNotFound : Error {
    explicit ToolNotFound(const std::string& name)
        : Error(ENVHOST_ERROR_TOOL_NOT_FOUND, "Unknown tool: '" + name + "'") {}
};
struct InvalidArgs : Error {
    explicit InvalidArgs(const std::string& msg) : Error(ENVHOST_ERROR_INVALID_ARGS, msg) {}
};
struct TimeoutError : Error {
    explicit TimeoutError(const std::string& msg) : Error(ENVHOST_ERROR_TIMEOUT, msg) {}
};

// ---- What a plugin returns -----------------------------------------------------

// One observation as it goes on the wire: {"observation":…,"reward":…,"done":…}.
struct StepResult {
    json observation = json::object();
    json reward = nullptr; // number, bool or null
    bool done = false;
    json to_json() const {
        return json{{"observation", observation}, {"reward", reward}, {"done", done}};
    }
};

struct Tool {
    std::string name;
    std::string description;
    json input_schema = json{{"type", "object"}};
};

struct PluginInfo {
    std::string name;
    std::string version = "1.0.0";
    std::string description;
    std::optional<std::string> author, documentation_url, readme;
    bool concurrency_safe = false;
    uint32_t default_max_sessions = 1;
    json action_schema = json{{"type", "object"}};
    json observation_schema = json{{"type", "object"}};
    json state_schema; // null: the base State schema
    std::vector<Tool> tools;
};

// The base State schema of the protocol (extra keys allowed).
inline json base_state_schema() {
    return json::parse(R"({"title":"State","type":"object","additionalProperties":true,
      "properties":{"episode_id":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null},
                    "step_count":{"type":"integer","minimum":0,"default":0}}})");
}

// Interface every environment implements. Called on the session's thread only.
class Environment {
public:
    virtual ~Environment() = default;
    // options: the client's reset keys (seed, episode_id, extras).
    virtual StepResult reset(const json& options) = 0;
    // action: already validated against PluginInfo::action_schema.
    // timeout_s: the client's limit for this step, if it gave one.
    virtual StepResult step(const json& action, std::optional<double> timeout_s) = 0;
    virtual json state() = 0;
    // Declared tools land here; the default knows none.
    virtual json call_tool(const std::string& name, const json& /*arguments*/) {
        throw ToolNotFound(name);
    }

    // The host's services, valid for the instance's whole life.
    void attach_host(const envhost_host* host) { host_ = host; }
    void log(envhost_log_level level, const std::string& msg) const {
        if (host_ && host_->log) host_->log(host_, level, msg.c_str());
    }

private:
    const envhost_host* host_ = nullptr;
};

// ---- Boundary glue (used by ENVHOST_PLUGIN) -------------------------------------

namespace detail {

inline void reply_json(envhost_reply* r, const json& j) {
    // Invalid UTF-8 from a plugin is replaced rather than thrown mid-reply.
    const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    r->ok(r, s.data(), s.size());
}

template <class F>
void guarded(envhost_reply* r, F&& f) noexcept {
    try {
        f();
    } catch (const Error& e) {
        const std::string errs = e.errors.is_null() ? std::string() : e.errors.dump();
        r->error(r, e.kind, e.what(), errs.empty() ? nullptr : errs.c_str());
    } catch (const std::exception& e) {
        r->error(r, ENVHOST_ERROR_EXECUTION, e.what(), nullptr);
    } catch (...) {
        r->error(r, ENVHOST_ERROR_EXECUTION, "unknown C++ exception in plugin", nullptr);
    }
}

inline json parse_arg(const char* s, size_t n) {
    if (s == nullptr || n == 0) return json::object();
    return json::parse(s, s + n);
}

// Owns the C descriptor and the strings it points at, for the library's life.
class DescriptorStore {
public:
    explicit DescriptorStore(PluginInfo info) : info_(std::move(info)) {
        action_ = info_.action_schema.dump();
        observation_ = info_.observation_schema.dump();
        state_ = (info_.state_schema.is_null() ? base_state_schema() : info_.state_schema).dump();
        for (const auto& t : info_.tools) tool_schemas_.push_back(t.input_schema.dump());
        for (size_t i = 0; i < info_.tools.size(); ++i)
            tools_.push_back({info_.tools[i].name.c_str(), info_.tools[i].description.c_str(),
                              tool_schemas_[i].c_str()});
        d_.struct_size = sizeof(envhost_descriptor);
        d_.name = info_.name.c_str();
        d_.version = info_.version.c_str();
        d_.description = info_.description.c_str();
        d_.author = info_.author ? info_.author->c_str() : nullptr;
        d_.documentation_url = info_.documentation_url ? info_.documentation_url->c_str() : nullptr;
        d_.readme = info_.readme ? info_.readme->c_str() : nullptr;
        d_.flags = info_.concurrency_safe ? ENVHOST_FLAG_CONCURRENCY_SAFE : 0u;
        d_.default_max_sessions = info_.default_max_sessions;
        d_.action_schema = action_.c_str();
        d_.observation_schema = observation_.c_str();
        d_.state_schema = state_.c_str();
        d_.tools = tools_.empty() ? nullptr : tools_.data();
        d_.tool_count = static_cast<uint32_t>(tools_.size());
    }
    const envhost_descriptor* get() const { return &d_; }
    bool has_tools() const { return !tools_.empty(); }

private:
    PluginInfo info_;
    std::string action_, observation_, state_;
    std::vector<std::string> tool_schemas_;
    std::vector<envhost_tool_desc> tools_;
    envhost_descriptor d_{};
};

template <class Env>
struct Adapter {
    static Env* self(envhost_instance* i) { return reinterpret_cast<Env*>(i); }

    static envhost_instance* create(const envhost_host* host, const char* cfg, size_t n,
                                    envhost_reply* r) noexcept {
        Env* env = nullptr;
        try {
            env = new Env(parse_arg(cfg, n));
            env->attach_host(host);
        } catch (const std::exception& e) {
            r->error(r, ENVHOST_ERROR_FACTORY, e.what(), nullptr);
        } catch (...) {
            r->error(r, ENVHOST_ERROR_FACTORY, "unknown C++ exception in plugin", nullptr);
        }
        return reinterpret_cast<envhost_instance*>(env);
    }
    static void reset(envhost_instance* i, const char* s, size_t n, envhost_reply* r) noexcept {
        guarded(r, [&] { reply_json(r, self(i)->reset(parse_arg(s, n)).to_json()); });
    }
    static void step(envhost_instance* i, const char* s, size_t n, const envhost_step_options* o,
                     envhost_reply* r) noexcept {
        guarded(r, [&] {
            std::optional<double> timeout;
            if (o && o->timeout_s > 0) timeout = o->timeout_s;
            reply_json(r, self(i)->step(parse_arg(s, n), timeout).to_json());
        });
    }
    static void state(envhost_instance* i, envhost_reply* r) noexcept {
        guarded(r, [&] { reply_json(r, self(i)->state()); });
    }
    static void call_tool(envhost_instance* i, const char* name, const char* s, size_t n,
                          envhost_reply* r) noexcept {
        guarded(r, [&] { reply_json(r, self(i)->call_tool(name ? name : "", parse_arg(s, n))); });
    }
    static void destroy(envhost_instance* i) noexcept {
        try {
            delete self(i);
        } catch (...) {
        }
    }

    // Optional class hooks: `static void start(const envhost_host*, const json& config)`
    // (throw to refuse the config) and `static void stop()`.
    template <class E, class = void> struct HasStart : std::false_type {};
    template <class E>
    struct HasStart<E, std::void_t<decltype(E::start(std::declval<const envhost_host*>(),
                                                     std::declval<const json&>()))>>
        : std::true_type {};
    template <class E, class = void> struct HasStop : std::false_type {};
    template <class E> struct HasStop<E, std::void_t<decltype(E::stop())>> : std::true_type {};

    static void start(const envhost_host* host, const char* cfg, size_t n, envhost_reply* r) noexcept {
        guarded(r, [&] {
            if constexpr (HasStart<Env>::value) Env::start(host, parse_arg(cfg, n));
            reply_json(r, json::object());
        });
    }
    static void stop() noexcept {
        if constexpr (HasStop<Env>::value) {
            try {
                Env::stop();
            } catch (...) {
            }
        }
    }

    static const envhost_plugin* table(PluginInfo (*info)()) {
        static const DescriptorStore store(info());
        static const envhost_plugin p = {
            ENVHOST_ABI_VERSION, sizeof(envhost_plugin), store.get(), &create, &reset, &step,
            &state, store.has_tools() ? &call_tool : nullptr, &destroy,
            HasStart<Env>::value ? &start : nullptr, HasStop<Env>::value ? &stop : nullptr};
        return &p;
    }
};

} // namespace detail

// ---- Tool environments -------------------------------------------------------------

// An environment whose actions are MCP tool calls made through step, as the
// reference's MCPEnvironment: step {"type":"list_tools"} lists the tools,
// {"type":"call_tool","tool_name":…,"arguments":{…}} calls one. Every step
// counts; direct call_tool (MCP tools/call) does not.
class ToolEnvironment : public Environment {
public:
    using Handler = std::function<json(const json& arguments)>;

    // The action schema matching what step accepts.
    static json action_schema() {
        return json::parse(R"({"title":"ToolAction","type":"object","additionalProperties":false,
          "properties":{"type":{"type":"string","enum":["call_tool","list_tools"],"default":"call_tool"},
                        "tool_name":{"type":"string"},
                        "arguments":{"type":"object","default":{}},
                        "metadata":{"type":"object","default":{}}}})");
    }

    StepResult reset(const json& options) override {
        step_count_ = 0;
        episode_id_ = options.contains("episode_id") && options["episode_id"].is_string()
                          ? options["episode_id"].get<std::string>()
                          : new_episode_id();
        on_reset(options);
        StepResult r;
        r.reward = 0.0;
        return r;
    }

    StepResult step(const json& action, std::optional<double>) override {
        ++step_count_;
        StepResult r;
        const std::string type = action.value("type", std::string("call_tool"));
        if (type == "list_tools") {
            json tools = json::array();
            for (const auto& t : tools_)
                tools.push_back({{"name", t.name}, {"description", t.description},
                                 {"input_schema", t.input_schema}});
            r.observation = {{"tools", tools}};
            return r;
        }
        if (!action.contains("tool_name"))
            throw ValidationError(json::array({{{"type", "missing"},
                                                 {"loc", json::array({"tool_name"})},
                                                 {"msg", "Field required"},
                                                 {"input", action}}}));
        const std::string name = action["tool_name"].get<std::string>();
        const json args = action.value("arguments", json::object());
        r.observation = {{"tool_name", name}, {"result", nullptr}, {"error", nullptr}};
        try {
            r.observation["result"] = call_tool_result(call_tool(name, args));
        } catch (const Error& e) {
            r.observation["error"] = {{"error_type", error_type(e.kind)}, {"message", e.what()}};
        } catch (const std::exception& e) {
            r.observation["error"] = {{"error_type", "execution_error"}, {"message", e.what()}};
        }
        return r;
    }

    json state() override { return {{"episode_id", episode_id_}, {"step_count", step_count_}}; }

    json call_tool(const std::string& name, const json& arguments) override {
        for (const auto& t : tools_)
            if (t.name == name) return t.handler(arguments);
        throw ToolNotFound(name);
    }

    static std::string new_episode_id();

protected:
    struct Registered {
        std::string name, description;
        json input_schema;
        Handler handler;
    };
    void add_tool(const Tool& t, Handler h) {
        tools_.push_back({t.name, t.description, t.input_schema, std::move(h)});
    }
    virtual void on_reset(const json& /*options*/) {}

    std::string episode_id_;
    int64_t step_count_ = 0;

private:
    static const char* error_type(envhost_error_kind k) {
        switch (k) {
        case ENVHOST_ERROR_TOOL_NOT_FOUND: return "tool_not_found";
        case ENVHOST_ERROR_INVALID_ARGS: return "invalid_args";
        case ENVHOST_ERROR_TIMEOUT: return "timeout";
        default: return "execution_error";
        }
    }
    std::vector<Registered> tools_;
};

} // namespace envhost

#include <envhost/uuid.hpp>

inline std::string envhost::ToolEnvironment::new_episode_id() { return envhost::uuid4(); }

// Defines the exported entry symbol for environment class EnvClass, whose
// constructor takes the plugin config (const nlohmann::json&). INFO_EXPR is an
// expression yielding an envhost::PluginInfo, evaluated once on first use.
#define ENVHOST_PLUGIN(EnvClass, INFO_EXPR)                                                  \
    extern "C" ENVHOST_EXPORT const envhost_plugin* envhost_plugin_entry(void) {             \
        return ::envhost::detail::Adapter<EnvClass>::table(                                  \
            []() -> ::envhost::PluginInfo { return INFO_EXPR; });                            \
    }
