#include "config.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

namespace coding {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& why) {
    throw std::invalid_argument("coding_env config: '" + key + "' " + why);
}

double number(const json& v, const std::string& key, double min_exclusive, double max) {
    if (!v.is_number()) bad(key, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d <= min_exclusive || d > max)
        bad(key, "must be > " + std::to_string(min_exclusive) + " and <= " + std::to_string(max));
    return d;
}

int64_t integer(const json& v, const std::string& key, int64_t min, int64_t max) {
    // JSON has one number type; accept 64 or 64.0 but not 64.5 or true.
    if (!v.is_number() || v.is_boolean()) bad(key, "must be an integer");
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d != std::floor(d)) bad(key, "must be an integer");
    }
    if (v.is_number_float() ? (v.get<double>() < double(min) || v.get<double>() > double(max))
                            : (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(max)
                                                      : (v.get<int64_t>() < min || v.get<int64_t>() > max)))
        bad(key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return v.is_number_float() ? int64_t(v.get<double>()) : v.get<int64_t>();
}

std::vector<std::string> strings(const json& v, const std::string& key) {
    if (!v.is_array()) bad(key, "must be an array of strings");
    std::vector<std::string> out;
    for (const auto& s : v) {
        if (!s.is_string()) bad(key, "must be an array of strings");
        out.push_back(s.get<std::string>());
    }
    return out;
}

} // namespace

Config Config::parse(const json& j) {
    Config c;
    if (j.is_null()) return c;
    if (!j.is_object()) throw std::invalid_argument("coding_env config must be a JSON object");
    const std::map<std::string, std::function<void(const json&, const std::string&)>> keys = {
        {"python", [&](const json& v, const std::string& k) {
             if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>()[0] != '/')
                 bad(k, "must be an absolute path string");
             c.python = v.get<std::string>();
         }},
        {"sandbox", [&](const json& v, const std::string& k) {
             if (!v.is_boolean()) bad(k, "must be true or false");
             c.sandbox = v.get<bool>();
         }},
        {"timeout_s", [&](const json& v, const std::string& k) { c.timeout_s = number(v, k, 0, 86400); }},
        {"max_timeout_s", [&](const json& v, const std::string& k) { c.max_timeout_s = number(v, k, 0, 86400); }},
        {"cpu_time_limit_s", [&](const json& v, const std::string& k) { c.cpu_time_limit_s = number(v, k, 0, 86400); }},
        {"memory_limit_mb", [&](const json& v, const std::string& k) { c.memory_limit_mb = integer(v, k, 32, 1 << 20); }},
        {"max_processes", [&](const json& v, const std::string& k) { c.max_processes = integer(v, k, 1, 100000); }},
        {"max_open_files", [&](const json& v, const std::string& k) { c.max_open_files = integer(v, k, 16, 1 << 20); }},
        {"max_file_size_mb", [&](const json& v, const std::string& k) { c.max_file_size_mb = integer(v, k, 1, 1 << 20); }},
        {"scratch_size_mb", [&](const json& v, const std::string& k) { c.scratch_size_mb = integer(v, k, 1, 1 << 20); }},
        {"output_limit_bytes", [&](const json& v, const std::string& k) { c.output_limit_bytes = integer(v, k, 1024, int64_t(1) << 30); }},
        {"pool_size", [&](const json& v, const std::string& k) { c.pool_size = integer(v, k, 0, 1024); }},
        {"allowed_modules", [&](const json& v, const std::string& k) {
             if (v.is_null()) c.allowed_modules.reset();
             else c.allowed_modules = strings(v, k);
         }},
        {"extra_ro_paths", [&](const json& v, const std::string& k) {
             c.extra_ro_paths = strings(v, k);
             for (const auto& p : c.extra_ro_paths)
                 if (p.empty() || p[0] != '/' || p.find("/..") != std::string::npos || p == "/")
                     bad(k, "entries must be absolute paths below / without '..'");
         }},
    };
    for (const auto& item : j.items()) {
        const auto it = keys.find(item.key());
        if (it == keys.end()) {
            std::string known;
            for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k.first;
            throw std::invalid_argument("coding_env config: unknown key '" + item.key() +
                                        "' (known keys: " + known + ")");
        }
        it->second(item.value(), item.key());
    }
    if (c.max_timeout_s < c.timeout_s) bad("max_timeout_s", "must be >= timeout_s");
    return c;
}

json Config::to_json() const {
    return json{{"python", python},
                {"sandbox", sandbox},
                {"timeout_s", timeout_s},
                {"max_timeout_s", max_timeout_s},
                {"cpu_time_limit_s", cpu_time_limit_s},
                {"memory_limit_mb", memory_limit_mb},
                {"max_processes", max_processes},
                {"max_open_files", max_open_files},
                {"max_file_size_mb", max_file_size_mb},
                {"scratch_size_mb", scratch_size_mb},
                {"output_limit_bytes", output_limit_bytes},
                {"pool_size", pool_size},
                {"allowed_modules", allowed_modules ? json(*allowed_modules) : json(nullptr)},
                {"extra_ro_paths", extra_ro_paths}};
}

} // namespace coding
