// The MCP CallToolResult shape of a tool's return value, one definition for
// the host (MCP tools/call) and the SDK (call_tool actions through step).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace envhost {

// {"content":[{"type":"text","text":…}],"structured_content":{"result":v},"data":v,"is_error":false}
inline nlohmann::json call_tool_result(const nlohmann::json& value) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    return {{"content", nlohmann::json::array({{{"type", "text"}, {"text", text}}})},
            {"structured_content", {{"result", value}}},
            {"data", value},
            {"is_error", false}};
}

} // namespace envhost
