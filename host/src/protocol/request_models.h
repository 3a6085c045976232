// The protocol's request models (ResetRequest, StepRequest) checked the way
// the reference's pydantic models check them, with pydantic-style errors.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

namespace envhost {

using json = nlohmann::json;

// Reset options: `seed` (int >= 0 or null; "42", 42.0 and true coerce),
// `episode_id` (string of at most 255 or null), other keys passed through.
// On success returns an empty array and fills options with the keys given.
// loc_prefix goes in front of every error loc (["body"] over HTTP).
json check_reset_options(const json& body, const json& loc_prefix, json& options);

struct StepRequest {
    json action;
    std::optional<double> timeout_s;
};
// An HTTP /step body: `action` object (required), `timeout_s` > 0 or null,
// `request_id` string (max 255) or null; extra keys allowed.
json check_step_request(const json& body, StepRequest& out);

// Over HTTP the reward is a float or null (1 and true become 1.0).
json http_observation(json reply);

} // namespace envhost
