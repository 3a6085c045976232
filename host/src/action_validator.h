// Validates client JSON against a plugin's JSON Schema (valijson) and reports
// failures as pydantic-style error items {"type","loc","msg","input"}, the
// shape OpenEnv clients expect in 422 bodies and VALIDATION_ERROR frames.
//
// Ownership: owns the compiled schema. Threads: validate() is const and may be
// called concurrently (valijson validation does not mutate the schema).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>

namespace valijson {
class Schema;
}

namespace envhost {

using json = nlohmann::json;

class ActionValidator {
public:
    // Throws std::runtime_error when the schema itself cannot be compiled.
    explicit ActionValidator(const json& schema);
    ~ActionValidator();
    ActionValidator(const ActionValidator&) = delete;
    ActionValidator& operator=(const ActionValidator&) = delete;

    // Returns an empty array when value conforms, else the error items. The
    // base Action field `metadata` (an object) is always accepted, as OpenEnv
    // clients send it with every action.
    json validate(const json& value) const;

private:
    json schema_;
    std::unique_ptr<valijson::Schema> compiled_;
};

} // namespace envhost
