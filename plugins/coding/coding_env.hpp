// coding_env: the OpenEnv coding environment (protocol page, section 7) on
// real CPython in a per-session sandbox.
//
// Ownership and threads: the host creates, calls and destroys each CodingEnv
// on that session's worker thread. Each instance owns one Sandbox at a time;
// the warm-sandbox Pool is shared by all instances with the same config and
// lives in a process-wide registry (start() fills it, stop() empties it).
#pragma once

#include "config.hpp"
#include "pool.hpp"
#include "sandbox.hpp"

#include <envhost/sdk.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace coding {

class CodingEnv final : public envhost::Environment {
public:
    explicit CodingEnv(const envhost::json& config); // throws envhost::FactoryError
    ~CodingEnv() override;

    envhost::StepResult reset(const envhost::json& options) override;
    envhost::StepResult step(const envhost::json& action, std::optional<double> timeout_s) override;
    envhost::json state() override;
    envhost::json call_tool(const std::string& name, const envhost::json& arguments) override;

    static void start(const envhost_host* host, const envhost::json& config);
    static void stop();

    // Runs code in this session's interpreter, replacing the interpreter if
    // it timed out or died. Exposed for the tool and for tests.
    ExecResult run(const std::string& code, double timeout_s, const std::function<void()>& while_running = {});

private:
    Config cfg_;
    std::shared_ptr<Pool> pool_;
    std::unique_ptr<Sandbox> sandbox_;
    std::string episode_id_;
    int64_t step_count_ = 0;
    int last_exit_code_ = 0;
};

envhost::PluginInfo coding_env_info();

} // namespace coding
