// greet_env: the smallest out-of-tree plugin, built by the package test
// against the installed SDK only. PLUGIN_NAME tells the two builds apart
// (CMake and pkg-config), so both can be served side by side.
#include <envhost/sdk.hpp>

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "greet_env"
#endif

namespace {

using envhost::json;

class GreetEnv final : public envhost::Environment {
public:
    explicit GreetEnv(const json& config) : greeting_(config.value("greeting", "hello")) {}

    envhost::StepResult reset(const json&) override {
        steps_ = 0;
        return observe("");
    }
    envhost::StepResult step(const json& action, std::optional<double>) override {
        ++steps_;
        return observe(action.value("name", "world"));
    }
    json state() override { return {{"episode_id", nullptr}, {"step_count", steps_}}; }

private:
    envhost::StepResult observe(const std::string& name) const {
        envhost::StepResult r;
        r.observation = {{"text", name.empty() ? "" : greeting_ + ", " + name}};
        r.reward = name.empty() ? 0.0 : 1.0;
        return r;
    }
    std::string greeting_;
    int64_t steps_ = 0;
};

envhost::PluginInfo info() {
    envhost::PluginInfo i;
    i.name = PLUGIN_NAME;
    i.description = "Greets whoever the action names";
    i.concurrency_safe = true;
    i.default_max_sessions = 4;
    i.action_schema = json::parse(R"({"type":"object","properties":{"name":{"type":"string"}}})");
    return i;
}

} // namespace

ENVHOST_PLUGIN(GreetEnv, info())
