// Parsing of client-supplied JSON with the protocol's allowances and the
// host's limits. Stateless and thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace envhost {

using json = nlohmann::json;

struct JsonParseError {
    std::string message; // parser's words, e.g. "syntax error while parsing value ..."
    std::size_t byte_offset = 0;
};

// Deepest nesting accepted: deeper documents are refused rather than risking
// the stack in later recursive walks (schema validation, dumping).
constexpr int kMaxJsonDepth = 128;

// Parses text as Python's json.dumps writes it: standard JSON plus the tokens
// NaN, Infinity and -Infinity outside strings. Returns false and fills err on
// malformed input or nesting deeper than kMaxJsonDepth.
bool parse_json(std::string_view text, json& out, JsonParseError& err);

} // namespace envhost
