// GET /metrics: the Prometheus text format, for the load balancers and
// orchestrators that run several envhost instances side by side.
#include "http/routes.h"

#include <sstream>

namespace envhost::http {
namespace {

// Label values are environment names ([A-Za-z0-9_.-]): nothing to escape.
void family(std::ostringstream& out, const char* name, const char* type, const char* help) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

} // namespace

void metrics(const ServerContext& ctx, Response& resp) {
    std::ostringstream out;
    auto per_env = [&](const char* name, const char* type, const char* help, auto value) {
        family(out, name, type, help);
        for (const auto& se : ctx.envs) out << name << "{env=\"" << se->env->name() << "\"} " << value(*se->env) << '\n';
    };
    per_env("envhost_sessions_active", "gauge", "Live sessions (WebSocket and HTTP-created MCP).",
            [](const Environment& e) { return e.active_sessions(); });
    per_env("envhost_sessions_max", "gauge", "Configured session capacity.",
            [](const Environment& e) { return e.max_sessions(); });
    static const struct {
        const char* name;
        const char* help;
        std::atomic<uint64_t> EnvCounters::*counter;
    } counters[] = {
        {"envhost_sessions_opened_total", "Sessions opened.", &EnvCounters::sessions_opened},
        {"envhost_sessions_refused_capacity_total", "Sessions refused at capacity.", &EnvCounters::sessions_refused_capacity},
        {"envhost_sessions_factory_failures_total", "Sessions whose instance could not be created.", &EnvCounters::sessions_failed_factory},
        {"envhost_sessions_reaped_idle_total", "Sessions closed for being idle.", &EnvCounters::sessions_reaped_idle},
        {"envhost_steps_total", "Steps handed to the environment (WebSocket and HTTP).", &EnvCounters::steps},
        {"envhost_step_errors_total", "Steps the environment failed.", &EnvCounters::step_errors},
        {"envhost_tool_calls_total", "MCP tools/call handed to the environment.", &EnvCounters::tool_calls},
    };
    for (const auto& c : counters)
        per_env(c.name, "counter", c.help, [&](const Environment& e) { return (e.counters().*c.counter).load(); });
    const std::string text = out.str();
    resp.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
    resp.setContentType("text/plain; version=0.0.4");
    resp.setContentLength(static_cast<std::streamsize>(text.size()));
    resp.send().write(text.data(), static_cast<std::streamsize>(text.size()));
}

} // namespace envhost::http
