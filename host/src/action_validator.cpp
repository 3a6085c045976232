#include "action_validator.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <regex>
#include <stdexcept>

namespace envhost {
namespace {

// valijson paths look like ["<root>", "[code]", "[0]"]; pydantic's loc is
// ["code", 0].
json to_loc(const std::vector<std::string>& context) {
    json loc = json::array();
    for (const auto& part : context) {
        if (part == "<root>" || part.size() < 2 || part.front() != '[' || part.back() != ']') continue;
        std::string inner = part.substr(1, part.size() - 2);
        if (!inner.empty() && std::all_of(inner.begin(), inner.end(), ::isdigit))
            loc.push_back(std::stoll(inner));
        else {
            // valijson quotes property names that contain odd characters.
            if (inner.size() >= 2 && inner.front() == '"' && inner.back() == '"') inner = inner.substr(1, inner.size() - 2);
            loc.push_back(inner);
        }
    }
    return loc;
}

const json* at_loc(const json& root, const json& loc) {
    const json* cur = &root;
    for (const auto& key : loc) {
        if (key.is_string() && cur->is_object() && cur->contains(key.get<std::string>()))
            cur = &(*cur)[key.get<std::string>()];
        else if (key.is_number_integer() && cur->is_array() && key.get<size_t>() < cur->size())
            cur = &(*cur)[key.get<size_t>()];
        else
            return nullptr;
    }
    return cur;
}

// The sub-schema describing the value at loc, following properties/items.
const json* schema_at(const json& schema, const json& loc) {
    const json* cur = &schema;
    for (const auto& key : loc) {
        if (key.is_string() && cur->contains("properties") && (*cur)["properties"].contains(key.get<std::string>()))
            cur = &(*cur)["properties"][key.get<std::string>()];
        else if (key.is_number_integer() && cur->contains("items") && (*cur)["items"].is_object())
            cur = &(*cur)["items"];
        else
            return nullptr;
    }
    return cur;
}

json first_type(const json* sub) {
    if (!sub) return nullptr;
    if (sub->contains("type")) {
        const json& t = (*sub)["type"];
        if (t.is_string()) return t;
        if (t.is_array() && !t.empty()) return t[0];
    }
    for (const char* k : {"anyOf", "oneOf"})
        if (sub->contains(k) && (*sub)[k].is_array())
            for (const auto& alt : (*sub)[k])
                if (alt.contains("type") && alt["type"] != "null") return alt["type"];
    return nullptr;
}

json type_error(const std::string& type) {
    static const std::map<std::string, std::pair<std::string, std::string>> table = {
        {"string", {"string_type", "Input should be a valid string"}},
        {"integer", {"int_type", "Input should be a valid integer"}},
        {"number", {"float_type", "Input should be a valid number"}},
        {"boolean", {"bool_type", "Input should be a valid boolean"}},
        {"object", {"dict_type", "Input should be a valid dictionary"}},
        {"array", {"list_type", "Input should be a valid list"}},
        {"null", {"none_required", "Input should be None"}},
    };
    auto it = table.find(type);
    if (it == table.end()) return {{"type", "value_error"}, {"msg", "Input has the wrong type"}};
    return {{"type", it->second.first}, {"msg", it->second.second}};
}

// Turns one valijson error into a pydantic-style item, or null for the
// wrapper errors valijson adds around the real one.
json to_item(const json& schema, const json& value, const valijson::ValidationResults::Error& e) {
    json loc = to_loc(e.context);
    const std::string& d = e.description;
    static const std::regex missing("Missing required property '(.*)'\\.");
    static const std::regex extra("could not be validated using 'properties' or 'additionalProperties' constraints: '(.*)'\\.");
    std::smatch m;
    json item;
    if (std::regex_search(d, m, missing)) {
        const json* parent = at_loc(value, loc);
        loc.push_back(m[1].str());
        return {{"type", "missing"}, {"loc", loc}, {"msg", "Field required"}, {"input", parent ? *parent : json::object()}};
    }
    if (std::regex_search(d, m, extra)) {
        loc.push_back(m[1].str());
        const json* v = at_loc(value, loc);
        return {{"type", "extra_forbidden"}, {"loc", loc}, {"msg", "Extra inputs are not permitted"}, {"input", v ? *v : json()}};
    }
    const json* v = at_loc(value, loc);
    const json input = v ? *v : json();
    const json* sub = schema_at(schema, loc);
    if (d.find("'type' constraint") != std::string::npos) {
        json t = type_error(first_type(sub).is_string() ? first_type(sub).get<std::string>() : "");
        return {{"type", t["type"]}, {"loc", loc}, {"msg", t["msg"]}, {"input", input}};
    }
    if (d.find("String should be no more than") != std::string::npos && sub && sub->contains("maxLength")) {
        const auto n = (*sub)["maxLength"];
        return {{"type", "string_too_long"}, {"loc", loc},
                {"msg", "String should have at most " + n.dump() + " characters"}, {"input", input},
                {"ctx", {{"max_length", n}}}};
    }
    if (d.find("String should be no fewer than") != std::string::npos && sub && sub->contains("minLength")) {
        const auto n = (*sub)["minLength"];
        return {{"type", "string_too_short"}, {"loc", loc},
                {"msg", "String should have at least " + n.dump() + " characters"}, {"input", input},
                {"ctx", {{"min_length", n}}}};
    }
    if (d.find("Expected number greater than or equal to") != std::string::npos && sub && sub->contains("minimum")) {
        const auto n = (*sub)["minimum"];
        return {{"type", "greater_than_equal"}, {"loc", loc},
                {"msg", "Input should be greater than or equal to " + n.dump()}, {"input", input},
                {"ctx", {{"ge", n}}}};
    }
    if (d.find("Expected number greater than") != std::string::npos && sub && sub->contains("exclusiveMinimum")) {
        const auto n = (*sub)["exclusiveMinimum"];
        return {{"type", "greater_than"}, {"loc", loc}, {"msg", "Input should be greater than " + n.dump()},
                {"input", input}, {"ctx", {{"gt", n}}}};
    }
    if (d.find("Expected number less than or equal to") != std::string::npos && sub && sub->contains("maximum")) {
        const auto n = (*sub)["maximum"];
        return {{"type", "less_than_equal"}, {"loc", loc},
                {"msg", "Input should be less than or equal to " + n.dump()}, {"input", input},
                {"ctx", {{"le", n}}}};
    }
    if (d.find("enum") != std::string::npos && sub && sub->contains("enum")) {
        std::string opts;
        for (const auto& o : (*sub)["enum"]) opts += (opts.empty() ? "" : ", ") + o.dump();
        return {{"type", "enum"}, {"loc", loc}, {"msg", "Input should be " + opts}, {"input", input},
                {"ctx", {{"expected", opts}}}};
    }
    return {{"type", "value_error"}, {"loc", loc}, {"msg", d}, {"input", input}};
}

// The protocol's base Action carries `metadata: object`; a plugin's schema
// may not mention it, and clients always send it.
json with_metadata(json schema) {
    if (schema.is_object() && schema.value("type", json()) == "object") {
        if (!schema.contains("properties")) schema["properties"] = json::object();
        if (!schema["properties"].contains("metadata"))
            schema["properties"]["metadata"] = {{"type", "object"}};
    }
    return schema;
}

} // namespace

ActionValidator::ActionValidator(const json& schema)
    : schema_(with_metadata(schema)), compiled_(std::make_unique<valijson::Schema>()) {
    try {
        valijson::SchemaParser parser;
        valijson::adapters::NlohmannJsonAdapter adapter(schema_);
        parser.populateSchema(adapter, *compiled_);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("cannot compile JSON Schema: ") + e.what());
    }
}

ActionValidator::~ActionValidator() = default;

json ActionValidator::validate(const json& value) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(value);
    json items = json::array();
    if (validator.validate(*compiled_, target, &results)) return items;
    valijson::ValidationResults::Error e;
    std::set<std::string> seen;
    while (results.popError(e)) {
        // valijson also reports "failed to validate against properties" style
        // wrappers; keep only errors that say what is wrong.
        if (e.description.find("Failed to validate against schema associated with property") != std::string::npos ||
            e.description.find("Object contains properties that could not be validated") != std::string::npos ||
            e.description.find("Failed to validate item") != std::string::npos)
            continue;
        json item = to_item(schema_, value, e);
        const std::string key = item.dump();
        if (seen.insert(key).second) items.push_back(std::move(item));
    }
    if (items.empty())
        items.push_back({{"type", "value_error"}, {"loc", json::array()}, {"msg", "Input failed schema validation"}, {"input", value}});
    return items;
}

} // namespace envhost
