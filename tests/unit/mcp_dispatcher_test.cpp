#include "environment.h"
#include "mcp_dispatcher.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

using namespace envhost;

namespace {

json rpc(const std::string& method, json params = nullptr, json id = 1) {
    json r = {{"jsonrpc", "2.0"}, {"method", method}, {"id", id}};
    if (!params.is_null()) r["params"] = params;
    return r;
}

int code(const json& response) { return response["error"]["code"].get<int>(); }

} // namespace

TEST(McpDispatcher, EnvelopeErrors) {
    auto env = test::make_env(test::echo_plugin());
    McpDispatcher d(*env);
    json r = d.handle_text("{nope", {});
    EXPECT_EQ(code(r), -32700);
    EXPECT_EQ(r["error"]["message"], "Parse error");
    EXPECT_TRUE(r["id"].is_null());
    EXPECT_EQ(code(d.handle_text("[1,2]", {})), -32600);
    EXPECT_EQ(code(d.handle({{"method", "tools/list"}, {"id", 1}}, {})), -32600);
    r = d.handle({{"jsonrpc", "2.0"}, {"method", "tools/list"}, {"id", 5}, {"extra", true}}, {});
    EXPECT_EQ(code(r), -32600);
    EXPECT_EQ(r["id"], 5);
    EXPECT_TRUE(r["error"].contains("data"));
    r = d.handle(rpc("nope/x", nullptr, "abc"), {});
    EXPECT_EQ(code(r), -32601);
    EXPECT_EQ(r["error"]["message"], "Method not found: nope/x");
    EXPECT_EQ(r["id"], "abc");
    r = d.handle({{"jsonrpc", "2.0"}, {"method", "tools/list"}}, {}); // no id still answered
    EXPECT_TRUE(r["id"].is_null());
    EXPECT_TRUE(r.contains("result"));
}

TEST(McpDispatcher, ToolsListAndCall) {
    auto env = test::make_env(test::echo_plugin());
    McpDispatcher d(*env);
    json r = d.handle(rpc("tools/list"), {});
    ASSERT_EQ(r["result"]["tools"].size(), 2u);
    EXPECT_TRUE(r["result"]["tools"][0].contains("inputSchema"));
    r = d.handle(rpc("tools/call", {{"name", "echo_with_length"}, {"arguments", {{"message", "abcd"}}}}), {});
    EXPECT_EQ(r["result"]["data"], json({{"message", "abcd"}, {"length", 4}}));
    EXPECT_EQ(r["result"]["is_error"], false);
    EXPECT_EQ(r["result"]["content"][0]["type"], "text");
    EXPECT_EQ(code(d.handle(rpc("tools/call", json::object()), {})), -32602);
    EXPECT_EQ(d.handle(rpc("tools/call", json::object()), {})["error"]["message"], "Missing 'name' in params");
    EXPECT_EQ(d.handle(rpc("tools/call", {{"name", "zz"}}), {})["error"]["message"], "Tool not found: zz");
    EXPECT_EQ(code(d.handle(rpc("tools/call", {{"name", "echo_message"}, {"arguments", {{"message", 1}}}}), {})), -32602);
}

TEST(McpDispatcher, EnvironmentWithoutTools) {
    auto env = test::make_env(test::example_plugin("c_counter.so"));
    McpDispatcher d(*env);
    json r = d.handle(rpc("tools/list"), {});
    EXPECT_EQ(code(r), -32603);
    EXPECT_EQ(r["error"]["message"], "Environment does not support MCP");
}

TEST(McpDispatcher, HttpSessionsLifecycle) {
    EnvSettings settings;
    settings.max_sessions = 1;
    auto env = test::make_env(test::test_plugin("test_env.so"), settings);
    McpDispatcher d(*env);
    json r = d.handle(rpc("openenv/session/create"), {});
    const std::string sid = r["result"]["session_id"];
    EXPECT_EQ(sid.size(), 36u);
    r = d.handle(rpc("openenv/session/create"), {});
    EXPECT_EQ(code(r), -32000);
    EXPECT_EQ(r["error"]["data"]["max_sessions"], 1);
    r = d.handle(rpc("tools/call", {{"name", "sleep"}, {"arguments", {{"seconds", 0}}}, {"session_id", sid}}), {});
    EXPECT_EQ(r["result"]["data"]["slept"], 0);
    EXPECT_EQ(d.handle(rpc("openenv/session/close", json::object()), {})["error"]["message"],
              "Invalid params - 'session_id' is required");
    EXPECT_EQ(d.handle(rpc("openenv/session/close", {{"session_id", "nope"}}), {})["error"]["message"],
              "Unknown session_id: nope");
    EXPECT_EQ(d.handle(rpc("tools/list", {{"session_id", "nope"}}), {})["error"]["code"], -32602);
    r = d.handle(rpc("openenv/session/close", {{"session_id", sid}}), {});
    EXPECT_EQ(r["result"], json({{"session_id", sid}, {"closed", true}}));
}

TEST(McpDispatcher, ClosingASessionDuringASlowCallAnswersBoth) {
    auto env = test::make_env(test::test_plugin("test_env.so"));
    McpDispatcher d(*env);
    const std::string sid = d.handle(rpc("openenv/session/create"), {})["result"]["session_id"];
    auto slow = std::async(std::launch::async, [&] {
        return d.handle(rpc("tools/call", {{"name", "sleep"}, {"arguments", {{"seconds", 0.5}}}, {"session_id", sid}}), {});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto queued = std::async(std::launch::async, [&] {
        return d.handle(rpc("tools/call", {{"name", "sleep"}, {"arguments", {{"seconds", 0}}}, {"session_id", sid}}, 2), {});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    json closed = d.handle(rpc("openenv/session/close", {{"session_id", sid}}), {});
    EXPECT_EQ(closed["result"]["closed"], true);
    json a = slow.get(), b = queued.get();
    EXPECT_EQ(a["result"]["data"]["slept"], 0.5);
    EXPECT_EQ(b["id"], 2);
    EXPECT_EQ(code(b), -32000);
    EXPECT_EQ(env->find_session(sid), nullptr);
}
