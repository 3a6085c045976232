#include "coding_env.hpp"

#include "reward.hpp"

#include <envhost/uuid.hpp>

#include <cmath>
#include <map>
#include <mutex>
#include <sstream>

namespace coding {

using envhost::json;

namespace {

// ---- the shared pools --------------------------------------------------------
// One pool per distinct config; the host passes the same config to start()
// and every create(), so normally there is exactly one.
struct Registry {
    std::mutex mu;
    std::map<std::string, std::shared_ptr<Pool>> pools;
    const envhost_host* host = nullptr; // valid between start() and stop()
};

Registry& registry() {
    static Registry* r = new Registry(); // never destroyed: sandboxes die with their pool thread
    return *r;
}

void host_log(int level, const std::string& msg) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.mu);
    if (r.host && r.host->log) r.host->log(r.host, static_cast<envhost_log_level>(level), msg.c_str());
}

std::shared_ptr<Pool> pool_for(const Config& cfg) {
    const std::string key = cfg.to_json().dump();
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.mu);
    auto& slot = r.pools[key];
    if (!slot) slot = std::make_shared<Pool>(cfg, host_log);
    return slot;
}

std::string format_seconds(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

} // namespace

// ---- descriptor ----------------------------------------------------------------

envhost::PluginInfo coding_env_info() {
    envhost::PluginInfo i;
    i.name = "coding_env";
    i.version = "1.0.0";
    i.description = "coding_env environment";
    i.concurrency_safe = true;
    i.default_max_sessions = 64;
    i.action_schema = json::parse(R"({
      "title": "CodeAction", "type": "object", "additionalProperties": false,
      "description": "Represents a single code execution request.",
      "properties": {
        "metadata": {"title": "Metadata", "type": "object", "additionalProperties": true,
                     "description": "Additional metadata for the action"},
        "code": {"title": "Code", "type": "string"}},
      "required": ["code"]})");
    i.observation_schema = json::parse(R"({
      "title": "CodeObservation", "type": "object", "additionalProperties": false,
      "description": "Result of executing code in the environment.",
      "properties": {
        "done": {"title": "Done", "type": "boolean", "default": false,
                 "description": "Whether the episode has terminated"},
        "reward": {"title": "Reward", "default": null,
                   "anyOf": [{"type": "boolean"}, {"type": "integer"}, {"type": "number"}, {"type": "null"}],
                   "description": "Reward signal from the last action"},
        "metadata": {"title": "Metadata", "type": "object", "additionalProperties": true,
                     "description": "Additional metadata for the observation"},
        "stdout": {"title": "Stdout", "type": "string", "default": ""},
        "stderr": {"title": "Stderr", "type": "string", "default": ""},
        "exit_code": {"title": "Exit Code", "type": "integer", "default": 0}}})");
    i.state_schema = json::parse(R"({
      "title": "CodeState", "type": "object", "additionalProperties": true,
      "description": "State for CodeAct environment with persistent execution context.",
      "properties": {
        "episode_id": {"title": "Episode Id", "anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
        "step_count": {"title": "Step Count", "type": "integer", "minimum": 0, "default": 0},
        "last_exit_code": {"title": "Last Exit Code", "type": "integer", "default": 0}}})");
    i.tools = {{"run_python",
                "Run Python code in this session's sandboxed interpreter (globals persist between calls). "
                "Returns stdout, stderr and exit_code; the value of a final expression is printed.",
                json::parse(R"({"type": "object", "additionalProperties": false,
                                "properties": {"code": {"type": "string", "description": "Python source to run"}},
                                "required": ["code"]})")}};
    return i;
}

// ---- lifecycle -------------------------------------------------------------------

void CodingEnv::start(const envhost_host* host, const json& config) {
    const Config cfg = Config::parse(config); // throws on a bad config: the host refuses it
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> lk(r.mu);
        r.host = host;
    }
    if (!cfg.sandbox)
        host_log(ENVHOST_LOG_WARN,
                 "coding_env: SANDBOX DISABLED by config (\"sandbox\": false): model-written code runs as the "
                 "envhost user with full access to this machine's network, files and processes");
    std::shared_ptr<Pool> pool;
    try {
        pool = pool_for(cfg);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("coding_env: ") + e.what()); // e.g. no interpreter: refuse
    }
    // Prove the sandbox works now, so a broken machine shows up in the log at
    // start rather than at the first session (which would fail closed anyway).
    try {
        pool->retire(pool->acquire(std::chrono::seconds(15)));
        host_log(ENVHOST_LOG_INFO, "coding_env: " + std::string(cfg.sandbox ? "sandboxed" : "UNSANDBOXED") +
                                       " interpreter " + cfg.python + ", pool of " + std::to_string(cfg.pool_size));
    } catch (const std::exception& e) {
        host_log(ENVHOST_LOG_ERROR, std::string("coding_env: sandbox self-test failed, sessions will fail: ") + e.what());
    }
}

void CodingEnv::stop() {
    std::map<std::string, std::shared_ptr<Pool>> pools;
    Registry& r = registry();
    {
        std::lock_guard<std::mutex> lk(r.mu);
        pools.swap(r.pools);
    }
    pools.clear(); // joins the pool threads, kills idle sandboxes
    std::lock_guard<std::mutex> lk(r.mu);
    r.host = nullptr;
}

CodingEnv::CodingEnv(const json& config) {
    try {
        cfg_ = Config::parse(config);
        pool_ = pool_for(cfg_);
        sandbox_ = pool_->acquire();
    } catch (const std::exception& e) {
        throw envhost::FactoryError(std::string("coding_env: cannot create the session sandbox: ") + e.what());
    }
    episode_id_ = envhost::uuid4();
}

CodingEnv::~CodingEnv() {
    if (pool_ && sandbox_) pool_->give_back(std::move(sandbox_));
}

// ---- OpenEnv interface ----------------------------------------------------------

envhost::StepResult CodingEnv::reset(const json& /*options: ignored, as in the reference*/) {
    // A fresh interpreter unless this one never ran code: nothing of the last
    // episode (globals, modules, threads, files) can leak into the next.
    if (!sandbox_ || sandbox_->dirty) {
        if (sandbox_) pool_->retire(std::move(sandbox_));
        try {
            sandbox_ = pool_->acquire();
        } catch (const std::exception& e) {
            throw envhost::ExecutionError(std::string("coding_env: cannot start a fresh interpreter: ") + e.what());
        }
    }
    episode_id_ = envhost::uuid4();
    step_count_ = 0;
    last_exit_code_ = 0;
    envhost::StepResult r;
    r.observation = {{"stdout", ""}, {"stderr", ""}, {"exit_code", 0}};
    r.reward = 0.0;
    return r;
}

envhost::StepResult CodingEnv::step(const json& action, std::optional<double> timeout_s) {
    if (!action.is_object() || !action.contains("code") || !action["code"].is_string())
        throw envhost::ValidationError(json::array({{{"type", "missing"}, {"loc", json::array({"code"})},
                                                      {"msg", "Field required"}, {"input", action}}}));
    const std::string code = action["code"].get<std::string>();
    double limit = cfg_.timeout_s;
    if (timeout_s && *timeout_s > 0) limit = std::min(*timeout_s, cfg_.max_timeout_s);
    // An interpreter that already ran this episode's code may have been
    // tampered with; then a clean one decides the syntax reward term.
    // The check runs while the session's interpreter executes the code.
    std::optional<bool> trusted;
    std::function<void()> check;
    if (sandbox_ && sandbox_->dirty) check = [&] { trusted = pool_->check_syntax(code); };
    const ExecResult res = run(code, limit, check);
    if (check && !trusted) check(); // the interpreter died before it got the code
    const bool syntax_ok = trusted.value_or(res.syntax_ok);
    ++step_count_;
    last_exit_code_ = res.exit_code;
    envhost::StepResult r;
    r.observation = {{"stdout", res.stdout_text}, {"stderr", res.stderr_text}, {"exit_code", res.exit_code}};
    r.reward = code_reward(code, syntax_ok);
    r.done = false;
    return r;
}

json CodingEnv::state() {
    return {{"episode_id", episode_id_}, {"step_count", step_count_}, {"last_exit_code", last_exit_code_}};
}

json CodingEnv::call_tool(const std::string& name, const json& arguments) {
    if (name != "run_python") throw envhost::ToolNotFound(name);
    if (!arguments.is_object() || !arguments.contains("code"))
        throw envhost::InvalidArgs("Missing required argument 'code'");
    if (!arguments["code"].is_string()) throw envhost::InvalidArgs("Argument 'code' must be a string");
    for (const auto& item : arguments.items())
        if (item.key() != "code") throw envhost::InvalidArgs("Unexpected argument '" + item.key() + "'");
    const ExecResult res = run(arguments["code"].get<std::string>(), cfg_.timeout_s);
    return {{"stdout", res.stdout_text}, {"stderr", res.stderr_text}, {"exit_code", res.exit_code}};
}

ExecResult CodingEnv::run(const std::string& code, double timeout_s, const std::function<void()>& while_running) {
    if (!sandbox_) {
        try {
            sandbox_ = pool_->acquire();
        } catch (const std::exception& e) {
            throw envhost::ExecutionError(std::string("coding_env: no interpreter available: ") + e.what());
        }
    }
    ExecResult res;
    std::string why;
    const Sandbox::Outcome outcome = sandbox_->exec(code, timeout_s, res, why, while_running);
    if (outcome == Sandbox::Outcome::ok) return res;

    // The interpreter is gone (or about to be): report, then start over.
    const size_t cap = size_t(cfg_.output_limit_bytes);
    res = ExecResult{};
    if (outcome == Sandbox::Outcome::timeout) {
        res.stdout_text = sandbox_->peek_output(1, cap); // what it printed before the limit
        res.stderr_text = sandbox_->peek_output(2, cap);
        res.exit_code = 124;
        res.stderr_text += "TimeoutError: execution exceeded the time limit of " + format_seconds(timeout_s) +
                           " s and was killed. The interpreter was restarted: all variables, functions and "
                           "imports from earlier steps were lost.\n";
    } else {
        res.exit_code = 1;
        // Make the exit code informative: 128+signal, or the exit status.
        const auto sig = why.find("signal ");
        if (sig != std::string::npos) res.exit_code = 128 + std::atoi(why.c_str() + sig + 7);
        else if (why.find("status ") != std::string::npos) res.exit_code = std::atoi(why.c_str() + why.find("status ") + 7);
        res.stderr_text = "InterpreterDied: " + why +
                          ". A fresh interpreter will run the next step: all variables, functions and imports "
                          "from earlier steps were lost.\n";
    }
    pool_->retire(std::move(sandbox_));
    try {
        sandbox_ = pool_->acquire();
    } catch (const std::exception& e) {
        // Reported on the next step (run() tries again), not lost silently.
        res.stderr_text += "coding_env: could not start a fresh interpreter yet: " + std::string(e.what()) + "\n";
    }
    return res;
}

} // namespace coding
