#include "request_models.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace envhost {
namespace {

json item(const char* type, json loc, const std::string& msg, const json& input, json ctx = nullptr) {
    json e = {{"type", type}, {"loc", std::move(loc)}, {"msg", msg}, {"input", input}};
    if (!ctx.is_null()) e["ctx"] = std::move(ctx);
    return e;
}

json loc_of(const json& prefix, const char* key) {
    json loc = prefix;
    loc.push_back(key);
    return loc;
}

// pydantic's lax int: ints, integral floats, bools and integer strings.
std::optional<long long> lax_int(const json& v, json& error, const json& loc) {
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) == d) return static_cast<long long>(d);
        error = item("int_from_float", loc, "Input should be a valid integer, got a number with a fractional part", v);
        return std::nullopt;
    }
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        char* end = nullptr;
        errno = 0;
        const long long n = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && end && *end == '\0' && errno == 0) return n;
        error = item("int_parsing", loc, "Input should be a valid integer, unable to parse string as an integer", v);
        return std::nullopt;
    }
    error = item("int_type", loc, "Input should be a valid integer", v);
    return std::nullopt;
}

std::optional<double> lax_float(const json& v, json& error, const json& loc) {
    if (v.is_number()) return v.get<double>();
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && end && *end == '\0') return d;
        error = item("float_parsing", loc, "Input should be a valid number, unable to parse string as a number", v);
        return std::nullopt;
    }
    error = item("float_type", loc, "Input should be a valid number", v);
    return std::nullopt;
}

void check_short_string(const json& body, const char* key, const json& prefix, json& errors) {
    if (!body.contains(key) || body[key].is_null()) return;
    const json& v = body[key];
    if (!v.is_string()) {
        errors.push_back(item("string_type", loc_of(prefix, key), "Input should be a valid string", v));
        return;
    }
    // pydantic counts code points.
    size_t n = 0;
    for (unsigned char c : v.get_ref<const std::string&>())
        if ((c & 0xC0) != 0x80) ++n;
    if (n > 255)
        errors.push_back(item("string_too_long", loc_of(prefix, key), "String should have at most 255 characters", v,
                              {{"max_length", 255}}));
}

} // namespace

json check_reset_options(const json& body, const json& loc_prefix, json& options) {
    json errors = json::array();
    if (body.is_null()) {
        options = json::object();
        return errors;
    }
    if (!body.is_object()) {
        errors.push_back(item("model_attributes_type", loc_prefix,
                              "Input should be a valid dictionary or object to extract fields from", body));
        return errors;
    }
    options = body;
    if (body.contains("seed") && !body["seed"].is_null()) {
        json err;
        const auto seed = lax_int(body["seed"], err, loc_of(loc_prefix, "seed"));
        if (!seed) errors.push_back(err);
        else if (*seed < 0)
            errors.push_back(item("greater_than_equal", loc_of(loc_prefix, "seed"),
                                  "Input should be greater than or equal to 0", body["seed"], {{"ge", 0}}));
        else options["seed"] = *seed;
    }
    check_short_string(body, "episode_id", loc_prefix, errors);
    return errors;
}

json check_step_request(const json& body, StepRequest& out) {
    const json prefix = json::array({"body"});
    json errors = json::array();
    if (!body.is_object()) {
        errors.push_back(item("model_attributes_type", prefix,
                              "Input should be a valid dictionary or object to extract fields from", body));
        return errors;
    }
    if (!body.contains("action"))
        errors.push_back(item("missing", loc_of(prefix, "action"), "Field required", body));
    else if (!body["action"].is_object())
        errors.push_back(item("dict_type", loc_of(prefix, "action"), "Input should be a valid dictionary", body["action"]));
    else
        out.action = body["action"];
    if (body.contains("timeout_s") && !body["timeout_s"].is_null()) {
        json err;
        const auto t = lax_float(body["timeout_s"], err, loc_of(prefix, "timeout_s"));
        if (!t) errors.push_back(err);
        else if (!(*t > 0))
            errors.push_back(item("greater_than", loc_of(prefix, "timeout_s"), "Input should be greater than 0",
                                  body["timeout_s"], {{"gt", 0.0}}));
        else out.timeout_s = *t;
    }
    check_short_string(body, "request_id", prefix, errors);
    return errors;
}

json http_observation(json reply) {
    if (reply.is_object() && reply.contains("reward")) {
        json& r = reply["reward"];
        if (r.is_boolean()) r = r.get<bool>() ? 1.0 : 0.0;
        else if (r.is_number()) r = r.get<double>();
    }
    return reply;
}

} // namespace envhost
