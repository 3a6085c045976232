// coding_env configuration: the plugin config object from the host's
// per-environment config, parsed and validated once.
//
// Ownership/threads: a plain value type; parse() is pure and may run on any
// thread. Unknown or ill-typed keys throw std::invalid_argument with a message
// naming the key, so start() can refuse the config and create() can report it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace coding {

struct Config {
    std::string python = "/usr/bin/python3"; // interpreter each session runs
    bool sandbox = true;                      // false = no isolation (warned at start)
    double timeout_s = 30.0;                  // wall-clock limit per step
    double max_timeout_s = 600.0;             // cap on a client's timeout_s override
    double cpu_time_limit_s = 30.0;           // CPU seconds per step, per process
    int64_t memory_limit_mb = 512;            // RLIMIT_AS per process
    int64_t max_processes = 32;               // processes+threads per session
    int64_t max_open_files = 256;             // RLIMIT_NOFILE
    int64_t max_file_size_mb = 64;            // RLIMIT_FSIZE
    int64_t scratch_size_mb = 64;             // tmpfs working directory size
    int64_t output_limit_bytes = 1 << 20;     // per stream, per step
    int64_t pool_size = 8;                    // warm sandboxes kept ready
    std::optional<std::vector<std::string>> allowed_modules; // null = any
    std::vector<std::string> extra_ro_paths;  // more host paths visible read-only

    // Throws std::invalid_argument on unknown keys, wrong types, bad ranges.
    static Config parse(const nlohmann::json& j);
    // The canonical form (all keys), used to share one pool per config.
    nlohmann::json to_json() const;
};

} // namespace coding
