#include "environment.h"

#include <envhost/uuid.hpp>

#include <spdlog/spdlog.h>

#include <vector>

namespace envhost {
namespace {

void log_from_plugin(const envhost_host* host, envhost_log_level level, const char* message) {
    auto* logger = static_cast<spdlog::logger*>(host->host_data);
    if (!logger || !message) return;
    switch (level) {
    case ENVHOST_LOG_DEBUG: logger->debug("{}", message); break;
    case ENVHOST_LOG_INFO: logger->info("{}", message); break;
    case ENVHOST_LOG_WARN: logger->warn("{}", message); break;
    default: logger->error("{}", message); break;
    }
}

std::shared_ptr<spdlog::logger> logger_for(const std::string& name) {
    auto base = spdlog::default_logger();
    auto l = std::make_shared<spdlog::logger>(name, base->sinks().begin(), base->sinks().end());
    l->set_level(base->level());
    return l;
}

} // namespace

Environment::Environment(std::shared_ptr<PluginLibrary> plugin, EnvSettings settings)
    : plugin_(std::move(plugin)), settings_(std::move(settings)) {
    max_sessions_ = settings_.max_sessions ? settings_.max_sessions : descriptor().default_max_sessions;
    config_json_ = settings_.plugin_config.dump();
    action_validator_ = std::make_unique<ActionValidator>(descriptor().action_schema);
    log_ = logger_for(descriptor().name);
    host_services_.struct_size = sizeof(envhost_host);
    host_services_.abi_version = ENVHOST_ABI_VERSION;
    host_services_.log = &log_from_plugin;
    host_services_.host_data = log_.get();
}

Environment::~Environment() {
    // Session workers hold a reference to this object until their instance is
    // destroyed: never let it go away under them.
    if (!stopped_) stop(1e9);
}

unsigned Environment::active_sessions() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<unsigned>(sessions_.size());
}

bool Environment::start(std::string& error) {
    if (!descriptor().concurrency_safe && max_sessions_ > 1) {
        error = "Environment '" + name() + "' is not marked as SUPPORTS_CONCURRENT_SESSIONS. "
                "Cannot run with max_concurrent_envs=" + std::to_string(max_sessions_) + ".";
        return false;
    }
    CallResult r = plugin_->start(&host_services_, config_json_);
    if (!r.ok) {
        error = r.message;
        return false;
    }
    started_ = true;
    return true;
}

void Environment::stop(double grace_s) {
    stopped_ = true;
    std::vector<std::shared_ptr<Session>> live;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, s] : sessions_) live.push_back(s);
    }
    for (auto& s : live) s->expire("server shutting down", true);
    std::unique_lock<std::mutex> lock(mu_);
    if (!all_finished_.wait_for(lock, std::chrono::duration<double>(grace_s), [&] { return slots_used_ == 0 && sessions_.empty(); }))
        log_->warn("{} session(s) still busy after {} s of shutdown grace", sessions_.size(), grace_s);
    lock.unlock();
    if (started_) plugin_->stop();
    started_ = false;
}

bool Environment::reserve_slot() {
    std::lock_guard<std::mutex> lock(mu_);
    if (slots_used_ >= max_sessions_) return false;
    ++slots_used_;
    return true;
}

void Environment::release_slot() {
    std::lock_guard<std::mutex> lock(mu_);
    --slots_used_;
    all_finished_.notify_all();
}

Environment::OpenResult Environment::open_session() {
    OpenResult out;
    if (!reserve_slot()) {
        const unsigned active = active_sessions();
        ++counters_.sessions_refused_capacity;
        out.status = OpenStatus::Capacity;
        out.message = "Server at capacity: " + std::to_string(active) + "/" + std::to_string(max_sessions_) +
                      " sessions active. Cannot accept new connections.";
        out.data = {{"active_sessions", active}, {"max_sessions", max_sessions_}};
        return out;
    }
    auto session = std::make_shared<Session>(*this, uuid4());
    {
        std::lock_guard<std::mutex> lock(mu_);
        sessions_[session->id()] = session;
    }
    CallResult r = session->start();
    if (!r.ok) {
        log_->warn("factory failed: {}", r.message);
        ++counters_.sessions_failed_factory;
        out.status = OpenStatus::Factory;
        out.message = "Environment factory '" + name() + "' failed to create instance.";
        out.data = {{"factory_name", name()}, {"reason", r.message}};
        return out;
    }
    ++counters_.sessions_opened;
    out.session = std::move(session);
    return out;
}

std::shared_ptr<Session> Environment::find_session(const std::string& id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->closing()) return nullptr;
    return it->second;
}

void Environment::expire_idle_sessions() {
    if (settings_.idle_timeout_s <= 0) return;
    const auto limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(settings_.idle_timeout_s));
    std::vector<std::shared_ptr<Session>> idle;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, s] : sessions_)
            if (s->idle_for_at_least(limit)) idle.push_back(s);
    }
    for (auto& s : idle) {
        log_->info("session {} idle for more than {} s: closing it", s->id(), settings_.idle_timeout_s);
        ++counters_.sessions_reaped_idle;
        s->expire("Session expired: idle for more than " + std::to_string(settings_.idle_timeout_s) + " s");
    }
}

CallResult Environment::step(envhost_instance* inst, const json& action, double timeout_s) const {
    ++counters_.steps;
    CallResult r = plugin_->step(inst, action, timeout_s);
    if (!r.ok) ++counters_.step_errors;
    return r;
}

CallResult Environment::call_tool(envhost_instance* inst, const std::string& tool, const json& args) const {
    ++counters_.tool_calls;
    return plugin_->call_tool(inst, tool, args);
}

envhost_instance* Environment::create_instance(CallResult& error) {
    return plugin_->create(&host_services_, config_json_, error);
}

void Environment::destroy_instance(envhost_instance* inst) { plugin_->destroy(inst); }

void Environment::session_finished(const Session& s) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        sessions_.erase(s.id());
    }
    release_slot();
}

Environment::Ephemeral::Ephemeral(Environment& env, envhost_instance* inst, bool holds_slot)
    : env_(env), inst_(inst), holds_slot_(holds_slot) {}

Environment::Ephemeral::~Ephemeral() {
    env_.destroy_instance(inst_);
    if (holds_slot_) env_.release_slot();
}

std::unique_ptr<Environment::Ephemeral> Environment::open_ephemeral(EphemeralStatus& status, CallResult& error) {
    const bool needs_slot = !descriptor().concurrency_safe;
    if (needs_slot && !reserve_slot()) {
        status = EphemeralStatus::Busy;
        return nullptr;
    }
    envhost_instance* inst = create_instance(error);
    if (!inst) {
        if (needs_slot) release_slot();
        status = EphemeralStatus::Factory;
        return nullptr;
    }
    status = EphemeralStatus::Ok;
    return std::make_unique<Ephemeral>(*this, inst, needs_slot);
}

} // namespace envhost
