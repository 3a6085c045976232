// echo_env: the protocol's simplest environment, a pure tool environment
// (section 7 of the OpenEnv protocol page). Two tools, reached through step
// (list_tools / call_tool actions) or MCP tools/call.
#include <envhost/sdk.hpp>

namespace {

using envhost::json;

json message_schema() {
    return json::parse(R"({"type":"object","properties":{"message":{"type":"string"}},
                           "required":["message"],"additionalProperties":false})");
}

const envhost::Tool kEchoMessage{"echo_message", "Echo back the provided message.", message_schema()};
const envhost::Tool kEchoWithLength{"echo_with_length",
                                    "Echo back the message together with its length.",
                                    message_schema()};

// Tool arguments come straight from clients: check them like the schema says.
std::string message_arg(const json& args) {
    if (!args.is_object() || !args.contains("message"))
        throw envhost::InvalidArgs("Missing required argument 'message'");
    if (!args["message"].is_string())
        throw envhost::InvalidArgs("Argument 'message' must be a string");
    for (const auto& item : args.items())
        if (item.key() != "message")
            throw envhost::InvalidArgs("Unexpected argument '" + item.key() + "'");
    return args["message"].get<std::string>();
}

// Length in Unicode code points, as Python's len() counts.
int64_t code_points(const std::string& s) {
    int64_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

class EchoEnv final : public envhost::ToolEnvironment {
public:
    explicit EchoEnv(const json& /*config*/) {
        episode_id_ = new_episode_id();
        add_tool(kEchoMessage, [](const json& a) { return json(message_arg(a)); });
        add_tool(kEchoWithLength, [](const json& a) {
            const std::string m = message_arg(a);
            return json{{"message", m}, {"length", code_points(m)}};
        });
    }
};

envhost::PluginInfo info() {
    envhost::PluginInfo i;
    i.name = "echo_env";
    i.version = "1.0.0";
    i.description = "echo_env environment";
    i.concurrency_safe = true;
    i.default_max_sessions = 8;
    i.action_schema = envhost::ToolEnvironment::action_schema();
    i.observation_schema = json::parse(R"({"title":"ToolObservation","type":"object"})");
    i.tools = {kEchoMessage, kEchoWithLength};
    return i;
}

} // namespace

ENVHOST_PLUGIN(EchoEnv, info())
