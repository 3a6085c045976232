#include "plugin_library.h"

#include <boost/dll/library_info.hpp>

#include <array>
#include <regex>

namespace envhost {
namespace {

constexpr std::array<const char*, 4> kReservedToolNames = {"reset", "step", "state", "close"};

// Collects the single reply a plugin gives through envhost_reply.
struct ReplySink {
    envhost_reply reply{};
    CallResult result;
    bool answered = false;

    ReplySink() {
        reply.struct_size = sizeof(envhost_reply);
        reply.host_data = this;
        reply.ok = [](envhost_reply* self, const char* data, size_t len) {
            auto* sink = static_cast<ReplySink*>(self->host_data);
            if (sink->answered) return;
            sink->answered = true;
            try {
                sink->result.value = json::parse(data, data + len);
                sink->result.ok = true;
            } catch (const json::exception& e) {
                sink->result = CallResult::failure(ENVHOST_ERROR_EXECUTION,
                                                   std::string("plugin replied with invalid JSON: ") + e.what());
            }
        };
        reply.error = [](envhost_reply* self, envhost_error_kind kind, const char* message,
                         const char* errors_json) {
            auto* sink = static_cast<ReplySink*>(self->host_data);
            if (sink->answered) return;
            sink->answered = true;
            json errs = nullptr;
            if (errors_json) errs = json::parse(errors_json, nullptr, false);
            if (errs.is_discarded()) errs = nullptr;
            sink->result = CallResult::failure(kind, message ? message : "plugin error", std::move(errs));
        };
    }

    CallResult take() {
        if (!answered) return CallResult::failure(ENVHOST_ERROR_EXECUTION, "plugin gave no reply");
        return std::move(result);
    }
};

std::string required_string(const char* s, const char* what) {
    if (s == nullptr) throw PluginLoadError(std::string("descriptor lacks ") + what);
    return s;
}

std::optional<std::string> optional_string(const char* s) {
    if (s == nullptr) return std::nullopt;
    return std::string(s);
}

json schema_object(const char* s, const char* what) {
    json j = json::parse(required_string(s, what), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw PluginLoadError(std::string(what) + " is not a JSON object");
    return j;
}

PluginDescriptor copy_descriptor(const envhost_descriptor* d) {
    if (d == nullptr) throw PluginLoadError("plugin table has no descriptor");
    if (d->struct_size < sizeof(envhost_descriptor))
        throw PluginLoadError("descriptor struct is smaller than ABI version 1 requires");
    PluginDescriptor out;
    out.name = required_string(d->name, "a name");
    static const std::regex name_rule("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");
    if (!std::regex_match(out.name, name_rule))
        throw PluginLoadError("environment name '" + out.name + "' is not URL-safe ([A-Za-z0-9_.-], max 64)");
    out.version = d->version ? d->version : "1.0.0";
    out.description = d->description ? d->description : out.name + " environment";
    out.author = optional_string(d->author);
    out.documentation_url = optional_string(d->documentation_url);
    out.readme = optional_string(d->readme);
    out.concurrency_safe = (d->flags & ENVHOST_FLAG_CONCURRENCY_SAFE) != 0;
    out.default_max_sessions = d->default_max_sessions == 0 ? 1 : d->default_max_sessions;
    out.action_schema = schema_object(d->action_schema, "action_schema");
    out.observation_schema = schema_object(d->observation_schema, "observation_schema");
    out.state_schema = schema_object(d->state_schema, "state_schema");
    if (d->tool_count > 0 && d->tools == nullptr) throw PluginLoadError("tool_count > 0 but tools is NULL");
    for (uint32_t i = 0; i < d->tool_count; ++i) {
        const envhost_tool_desc& t = d->tools[i];
        ToolInfo tool{required_string(t.name, "a tool name"), t.description ? t.description : "",
                      schema_object(t.input_schema, "a tool input_schema")};
        for (const char* reserved : kReservedToolNames)
            if (tool.name == reserved)
                throw PluginLoadError("declares the reserved tool name '" + tool.name + "'");
        if (out.find_tool(tool.name)) throw PluginLoadError("declares tool '" + tool.name + "' twice");
        out.tools.push_back(std::move(tool));
    }
    return out;
}

} // namespace

const ToolInfo* PluginDescriptor::find_tool(const std::string& tool) const {
    for (const auto& t : tools)
        if (t.name == tool) return &t;
    return nullptr;
}

CallResult CallResult::failure(envhost_error_kind k, std::string msg, json errs) {
    CallResult r;
    r.ok = false;
    r.kind = k;
    r.message = std::move(msg);
    r.errors = std::move(errs);
    return r;
}

std::shared_ptr<PluginLibrary> PluginLibrary::load(const std::string& path) {
    std::shared_ptr<PluginLibrary> p(new PluginLibrary());
    p->path_ = path;
    try {
        // Parsing the headers first gives a clear reason for files that are
        // not shared libraries at all. (The entry symbol is looked up after
        // loading: library_info reads only .symtab, which strip removes.)
        boost::dll::library_info info(path);
    } catch (const std::exception& e) {
        throw PluginLoadError(std::string("not a shared library: ") + e.what());
    }
    try {
        p->lib_.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        throw PluginLoadError(std::string("cannot load: ") + e.what());
    }
    if (!p->lib_.has(ENVHOST_ENTRY_SYMBOL))
        throw PluginLoadError(std::string("no ") + ENVHOST_ENTRY_SYMBOL + " symbol: not an envhost plugin");
    auto entry = p->lib_.get<const envhost_plugin*()>(ENVHOST_ENTRY_SYMBOL);
    const envhost_plugin* table = entry();
    if (table == nullptr) throw PluginLoadError("entry function returned NULL");
    if (table->abi_version != ENVHOST_ABI_VERSION)
        throw PluginLoadError("ABI version " + std::to_string(table->abi_version) + ", this host speaks " +
                              std::to_string(ENVHOST_ABI_VERSION));
    if (table->struct_size < offsetof(envhost_plugin, start))
        throw PluginLoadError("plugin table is smaller than ABI version 1 requires");
    if (!table->create || !table->reset || !table->step || !table->state || !table->destroy)
        throw PluginLoadError("plugin table lacks a required function");
    p->table_ = table;
    p->descriptor_ = copy_descriptor(table->descriptor);
    if (!p->descriptor_.tools.empty() && table->call_tool == nullptr)
        throw PluginLoadError("declares tools but has no call_tool function");
    return p;
}

CallResult PluginLibrary::start(const envhost_host* host, const std::string& config_json) const {
    if (table_->struct_size < sizeof(envhost_plugin) || table_->start == nullptr) {
        CallResult r;
        r.ok = true;
        return r;
    }
    ReplySink sink;
    table_->start(host, config_json.data(), config_json.size(), &sink.reply);
    return sink.take();
}

void PluginLibrary::stop() const {
    if (table_->struct_size >= sizeof(envhost_plugin) && table_->stop != nullptr) table_->stop();
}

envhost_instance* PluginLibrary::create(const envhost_host* host, const std::string& config_json,
                                        CallResult& error) const {
    ReplySink sink;
    envhost_instance* inst = table_->create(host, config_json.data(), config_json.size(), &sink.reply);
    if (inst == nullptr)
        error = sink.answered ? sink.take() : CallResult::failure(ENVHOST_ERROR_FACTORY, "create returned NULL");
    return inst;
}

CallResult PluginLibrary::reset(envhost_instance* inst, const json& options) const {
    const std::string s = options.dump();
    ReplySink sink;
    table_->reset(inst, s.data(), s.size(), &sink.reply);
    return sink.take();
}

CallResult PluginLibrary::step(envhost_instance* inst, const json& action, double timeout_s) const {
    const std::string s = action.dump();
    envhost_step_options opts{sizeof(envhost_step_options), timeout_s};
    ReplySink sink;
    table_->step(inst, s.data(), s.size(), &opts, &sink.reply);
    return sink.take();
}

CallResult PluginLibrary::state(envhost_instance* inst) const {
    ReplySink sink;
    table_->state(inst, &sink.reply);
    return sink.take();
}

CallResult PluginLibrary::call_tool(envhost_instance* inst, const std::string& tool, const json& args) const {
    if (table_->call_tool == nullptr)
        return CallResult::failure(ENVHOST_ERROR_TOOL_NOT_FOUND, "Tool not found: " + tool);
    const std::string s = args.dump();
    ReplySink sink;
    table_->call_tool(inst, tool.c_str(), s.data(), s.size(), &sink.reply);
    return sink.take();
}

void PluginLibrary::destroy(envhost_instance* inst) const {
    if (inst) table_->destroy(inst);
}

} // namespace envhost
