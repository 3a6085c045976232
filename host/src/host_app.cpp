#include "host_app.h"

#include "http/router.h"
#include "http/ws_reactor.h"
#include "plugin_scanner.h"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/filesystem.hpp>

#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/ThreadPool.h>
#include <Poco/Util/HelpFormatter.h>
#include <Poco/Util/Option.h>
#include <Poco/Util/OptionSet.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <thread>

#ifndef ENVHOST_VERSION
#define ENVHOST_VERSION "0.0.0"
#endif
#ifndef ENVHOST_DEFAULT_PLUGIN_DIR
#define ENVHOST_DEFAULT_PLUGIN_DIR "/usr/lib/envhost/plugins"
#endif
#ifndef ENVHOST_PLUGIN_DIR_FROM_PREFIX
#define ENVHOST_PLUGIN_DIR_FROM_PREFIX "lib/envhost/plugins"
#endif

namespace envhost {

using Poco::Util::Option;

namespace {

// Closes sessions idle for longer than their environment's timeout.
class IdleReaper {
public:
    explicit IdleReaper(const ServerContext& ctx) {
        double interval = 5.0;
        bool any = false;
        for (const auto& se : ctx.envs)
            if (se->env->idle_timeout_s() > 0) {
                any = true;
                interval = std::min(interval, std::max(0.1, se->env->idle_timeout_s() / 4));
            }
        if (!any) return;
        thread_ = std::thread([this, &ctx, interval] {
            std::unique_lock<std::mutex> lock(mu_);
            while (!cv_.wait_for(lock, std::chrono::duration<double>(interval), [this] { return stop_; })) {
                lock.unlock();
                for (const auto& se : ctx.envs) se->env->expire_idle_sessions();
                lock.lock();
            }
        });
    }
    ~IdleReaper() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

// The bundled plugins' directory of this installation: <prefix>/bin/envhost
// finds <prefix>/<libdir>/envhost/plugins, wherever the prefix was moved;
// otherwise the directory configured at build time.
std::string default_plugin_dir() {
    boost::dll::fs::error_code ec;
    const boost::dll::fs::path exe = boost::dll::program_location(ec);
    if (!ec) {
        const boost::filesystem::path dir =
            boost::filesystem::path(exe.string()).parent_path().parent_path() / ENVHOST_PLUGIN_DIR_FROM_PREFIX;
        boost::system::error_code ignored;
        if (boost::filesystem::is_directory(dir, ignored)) return dir.string();
    }
    return ENVHOST_DEFAULT_PLUGIN_DIR;
}

spdlog::level::level_enum parse_level(const std::string& s) {
    const auto level = spdlog::level::from_str(s);
    if (level == spdlog::level::off && s != "off") throw ConfigError("unknown log level '" + s + "'");
    return level;
}

} // namespace

HostApp::HostApp() { setUnixOptions(true); }

void HostApp::defineOptions(Poco::Util::OptionSet& options) {
    ServerApplication::defineOptions(options);
    options.addOption(Option("help", "h", "show this help and exit"));
    options.addOption(Option("version", "V", "print the version and exit"));
    options.addOption(Option("plugin-dir", "", "a directory of plugin libraries (*.so); repeatable. Default: <prefix>/" ENVHOST_PLUGIN_DIR_FROM_PREFIX)
                          .argument("DIR").repeatable(true));
    options.addOption(Option("host", "", "address to listen on (default 127.0.0.1)").argument("ADDR"));
    options.addOption(Option("port", "", "TCP port to listen on (default 8000; 0 picks a free one)").argument("PORT"));
    options.addOption(Option("mode", "", "simulation (default) or production: production serves no /reset, /step, /state").argument("MODE"));
    options.addOption(Option("config", "", "JSON configuration file (see README); flags override it").argument("FILE"));
    options.addOption(Option("default-env", "", "environment also served at the root paths (default: the only one loaded)").argument("NAME"));
    options.addOption(Option("log-level", "", "trace, debug, info (default), warn, error").argument("LEVEL"));
}

void HostApp::handleOption(const std::string& name, const std::string& value) {
    ServerApplication::handleOption(name, value);
    if (name == "help") {
        print_help();
        stop_early_ = true;
        stopOptionsProcessing();
    } else if (name == "version") {
        std::cout << "envhost " << ENVHOST_VERSION << " (plugin ABI " << ENVHOST_ABI_VERSION << ")\n";
        stop_early_ = true;
        stopOptionsProcessing();
    } else if (name == "plugin-dir") cli_plugin_dirs_.push_back(value);
    else if (name == "host") cli_host_ = value;
    else if (name == "port") {
        try {
            const int p = std::stoi(value);
            if (p < 0 || p > 65535) throw std::out_of_range("port");
            cli_port_ = static_cast<unsigned>(p);
        } catch (const std::exception&) {
            throw Poco::InvalidArgumentException("--port must be an integer 0-65535, not '" + value + "'");
        }
    } else if (name == "mode") cli_mode_ = value;
    else if (name == "config") config_file_ = value;
    else if (name == "default-env") cli_default_env_ = value;
    else if (name == "log-level") cli_log_level_ = value;
}

void HostApp::print_help() const {
    Poco::Util::HelpFormatter help(options());
    help.setCommand(commandName());
    help.setUsage("[OPTIONS]");
    help.setHeader("envhost serves OpenEnv reinforcement-learning environments loaded from plugin libraries, over "
                   "HTTP, WebSocket and MCP JSON-RPC. Every environment is served under /envs/<name>/; the default "
                   "one also at the root paths.");
    help.setFooter("Signals: SIGTERM or SIGINT stop the server cleanly. Exit codes: 0 ok, 64 usage, 78 configuration.");
    help.format(std::cout);
}

HostConfig HostApp::build_config() const {
    HostConfig cfg;
    if (config_file_) cfg.apply_file(*config_file_);
    if (!cli_plugin_dirs_.empty()) cfg.plugin_dirs = cli_plugin_dirs_;
    if (cfg.plugin_dirs.empty()) cfg.plugin_dirs.push_back(default_plugin_dir());
    if (cli_host_) cfg.host = *cli_host_;
    if (cli_port_) cfg.port = *cli_port_;
    if (cli_mode_) cfg.mode = parse_mode(*cli_mode_);
    if (cli_default_env_) cfg.default_env = *cli_default_env_;
    if (cli_log_level_) cfg.log_level = *cli_log_level_;
    return cfg;
}

bool HostApp::load_environments(ServerContext& ctx) const {
    ScanResult scan = scan_plugin_dirs(ctx.config.plugin_dirs);
    for (const auto& s : scan.skipped) spdlog::warn("skipped {}: {}", s.path, s.reason);
    for (auto& lib : scan.loaded) {
        const std::string name = lib->descriptor().name;
        auto env = std::make_shared<Environment>(lib, ctx.config.settings_for(name));
        std::string error;
        if (!env->start(error)) {
            if (!env->descriptor().concurrency_safe && env->max_sessions() > 1) {
                spdlog::critical("{}", error);
                return false;
            }
            spdlog::error("not serving {} ({}): {}", name, lib->path(), error);
            continue;
        }
        spdlog::info("serving {} {} from {} (max {} sessions{}{})", name, env->descriptor().version, lib->path(),
                     env->max_sessions(), env->descriptor().concurrency_safe ? "" : ", not concurrency-safe",
                     env->idle_timeout_s() > 0 ? ", idle timeout " + std::to_string(env->idle_timeout_s()) + " s" : "");
        ctx.envs.push_back(std::make_unique<ServedEnv>(std::move(env)));
    }
    for (const auto& [name, settings] : ctx.config.environments)
        if (!ctx.find(name)) spdlog::warn("config names environment '{}', which no plugin provides", name);
    if (ctx.config.default_env) {
        ctx.default_env = ctx.find(*ctx.config.default_env);
        if (!ctx.default_env) {
            spdlog::critical("--default-env {}: no such environment is loaded", *ctx.config.default_env);
            return false;
        }
    } else if (ctx.envs.size() == 1) {
        ctx.default_env = ctx.envs.front().get();
    }
    if (ctx.envs.empty()) spdlog::warn("no environment loaded: only /health and /envs are served");
    return true;
}

int HostApp::main(const std::vector<std::string>& args) {
    if (stop_early_) return EXIT_OK;
    if (!args.empty()) {
        std::cerr << "envhost: unexpected argument '" << args.front() << "' (see --help)\n";
        return kUsage;
    }
    auto console = spdlog::stderr_color_mt("envhost");
    spdlog::set_default_logger(console);
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");

    ServerContext ctx;
    try {
        ctx.config = build_config();
        spdlog::set_level(parse_level(ctx.config.log_level));
    } catch (const ConfigError& e) {
        spdlog::critical("configuration: {}", e.what());
        return kConfig;
    }
    if (!load_environments(ctx)) return kConfig;

    Poco::Net::ServerSocket socket;
    try {
        // SO_REUSEADDR for quick restarts, but not SO_REUSEPORT: a second
        // envhost on the same port must fail, not share the connections.
        socket.bind(Poco::Net::SocketAddress(ctx.config.host, static_cast<Poco::UInt16>(ctx.config.port)), true, false);
        socket.listen(1024);
    } catch (const Poco::Exception& e) {
        spdlog::critical("cannot listen on {}:{}: {}", ctx.config.host, ctx.config.port, e.displayText());
        return kConfig;
    }
    auto params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(static_cast<int>(ctx.config.max_connections));
    params->setMaxQueued(1024);
    params->setKeepAlive(true);
    params->setTimeout(Poco::Timespan(60, 0));
    params->setServerName("envhost/" ENVHOST_VERSION);
    // An HTTP connection holds a pool thread while it is open; a WebSocket
    // only during its upgrade (the reactor takes it from there).
    Poco::ThreadPool pool(2, static_cast<int>(ctx.config.max_connections), 60);
    WsReactor reactor(ctx.config.io_threads);
    ctx.reactor = &reactor;
    Poco::Net::HTTPServer server(new http::RequestRouter(ctx), pool, socket, params);
    server.start();
    spdlog::info("envhost {} listening on http://{}:{} ({} mode, {} environment(s))", ENVHOST_VERSION, ctx.config.host,
                 socket.address().port(), ctx.config.mode == ServeMode::Production ? "production" : "simulation",
                 ctx.envs.size());
    {
        IdleReaper reaper(ctx);
        waitForTerminationRequest();
        spdlog::info("shutting down");
        server.stop(); // no new connections
    }
    bool all_finished = true;
    for (const auto& se : ctx.envs) {
        se->env->stop(ctx.config.shutdown_grace_s);
        all_finished = all_finished && se->env->active_sessions() == 0;
    }
    reactor.stop(); // after the sessions: their goodbyes are sent
    server.stopAll(true);
    pool.joinAll();
    spdlog::info("stopped");
    spdlog::shutdown();
    if (!all_finished) std::_Exit(EXIT_SOFTWARE); // a plugin is stuck: unloading it would be unsafe
    return EXIT_OK;
}

} // namespace envhost
