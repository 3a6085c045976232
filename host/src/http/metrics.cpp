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
    struct Row {
        const char* name;
        const char* type;
        const char* help;
        uint64_t (*value)(const Environment&);
    };
    static const Row rows[] = {
        {"envhost_sessions_active", "gauge", "Live sessions (WebSocket and HTTP-created MCP).",
         [](const Environment& e) -> uint64_t { return e.active_sessions(); }},
        {"envhost_sessions_max", "gauge", "Configured session capacity.",
         [](const Environment& e) -> uint64_t { return e.max_sessions(); }},
        {"envhost_sessions_opened_total", "counter", "Sessions opened.",
         [](const Environment& e) -> uint64_t { return e.counters().sessions_opened; }},
        {"envhost_sessions_refused_capacity_total", "counter", "Sessions refused at capacity.",
         [](const Environment& e) -> uint64_t { return e.counters().sessions_refused_capacity; }},
        {"envhost_sessions_factory_failures_total", "counter", "Sessions whose instance could not be created.",
         [](const Environment& e) -> uint64_t { return e.counters().sessions_failed_factory; }},
        {"envhost_sessions_reaped_idle_total", "counter", "Sessions closed for being idle.",
         [](const Environment& e) -> uint64_t { return e.counters().sessions_reaped_idle; }},
        {"envhost_steps_total", "counter", "Steps handed to the environment (WebSocket and HTTP).",
         [](const Environment& e) -> uint64_t { return e.counters().steps; }},
        {"envhost_step_errors_total", "counter", "Steps the environment failed.",
         [](const Environment& e) -> uint64_t { return e.counters().step_errors; }},
        {"envhost_tool_calls_total", "counter", "MCP tools/call handed to the environment.",
         [](const Environment& e) -> uint64_t { return e.counters().tool_calls; }},
    };
    for (const Row& row : rows) {
        family(out, row.name, row.type, row.help);
        for (const auto& se : ctx.envs) out << row.name << "{env=\"" << se->env->name() << "\"} " << row.value(*se->env) << '\n';
    }
    const std::string text = out.str();
    resp.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
    resp.setContentType("text/plain; version=0.0.4");
    resp.setContentLength(static_cast<std::streamsize>(text.size()));
    resp.send().write(text.data(), static_cast<std::streamsize>(text.size()));
}

} // namespace envhost::http
