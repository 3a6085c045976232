// The envhost application: command line, plugin loading, the HTTP server, the
// idle-session reaper and clean shutdown on SIGTERM/SIGINT.
// Lives on the main thread; owns the ServerContext and everything in it.
#pragma once

#include "http/server_context.h"

#include <Poco/Util/ServerApplication.h>

#include <optional>
#include <string>
#include <vector>

namespace envhost {

class HostApp : public Poco::Util::ServerApplication {
public:
    HostApp();

protected:
    void defineOptions(Poco::Util::OptionSet& options) override;
    void handleOption(const std::string& name, const std::string& value) override;
    int main(const std::vector<std::string>& args) override;

private:
    // Exit codes (sysexits.h).
    static constexpr int kUsage = 64;
    static constexpr int kConfig = 78;

    void print_help() const;
    HostConfig build_config() const; // defaults < --config file < flags
    bool load_environments(ServerContext& ctx) const;

    bool stop_early_ = false;
    std::optional<std::string> config_file_;
    std::vector<std::string> cli_plugin_dirs_;
    std::optional<std::string> cli_host_, cli_mode_, cli_default_env_, cli_log_level_;
    std::optional<unsigned> cli_port_;
};

} // namespace envhost
