#include "environment.h"
#include "mcp_dispatcher.h"
#include "test_support.h"
#include "ws_messages.h"

#include <gtest/gtest.h>

#include <future>

using namespace envhost;

namespace {

class WsMessages : public ::testing::Test {
protected:
    void SetUp() override {
        env = test::make_env(test::echo_plugin());
        session = env->open_session().session;
        mcp = std::make_unique<McpDispatcher>(*env);
        handler = std::make_unique<WsMessageHandler>(*env, *mcp);
    }
    void TearDown() override {
        session->close();
        session->wait_finished();
    }
    json send(const json& msg) {
        auto p = std::make_shared<std::promise<json>>();
        session->post([&, p, msg](envhost_instance* inst) { p->set_value(handler->handle(msg, *session, inst)); });
        return p->get_future().get();
    }
    std::shared_ptr<Environment> env;
    std::shared_ptr<Session> session;
    std::unique_ptr<McpDispatcher> mcp;
    std::unique_ptr<WsMessageHandler> handler;
};

} // namespace

TEST_F(WsMessages, ResetStepStateRoundTrip) {
    json r = send({{"type", "reset"}, {"data", {{"episode_id", "ep-1"}}}});
    EXPECT_EQ(r["type"], "observation");
    EXPECT_EQ(r["data"]["reward"], 0.0);
    r = send({{"type", "step"}, {"data", {{"tool_name", "echo_message"}, {"arguments", {{"message", "hi"}}}, {"metadata", json::object()}}}});
    EXPECT_EQ(r["type"], "observation");
    EXPECT_EQ(r["data"]["observation"]["result"]["data"], "hi");
    r = send({{"type", "state"}});
    EXPECT_EQ(r["type"], "state");
    EXPECT_EQ(r["data"]["episode_id"], "ep-1");
    EXPECT_EQ(r["data"]["step_count"], 1);
}

TEST_F(WsMessages, UnknownAndMissingTypes) {
    json r = send({{"type", "dance"}});
    EXPECT_EQ(r["data"]["code"], "UNKNOWN_TYPE");
    EXPECT_EQ(r["data"]["message"], "Unknown message type: dance");
    EXPECT_EQ(send({{"data", 1}})["data"]["message"], "Unknown message type: None");
}

TEST_F(WsMessages, ValidationErrors) {
    json r = send({{"type", "state"}, {"data", json::object()}});
    EXPECT_EQ(r["data"]["code"], "VALIDATION_ERROR");
    EXPECT_EQ(r["data"]["message"], "Invalid message");
    EXPECT_EQ(r["data"]["errors"][0]["type"], "extra_forbidden");
    r = send({{"type", "step"}});
    EXPECT_EQ(r["data"]["errors"][0]["loc"], json::array({"data"}));
    r = send({{"type", "step"}, {"data", {{"tool_name", 5}}}});
    EXPECT_EQ(r["data"]["code"], "VALIDATION_ERROR");
    EXPECT_EQ(r["data"]["errors"][0]["type"], "string_type");
    r = send({{"type", "reset"}, {"data", {{"seed", -3}}}});
    EXPECT_EQ(r["data"]["errors"][0]["loc"], json::parse(R"(["data","seed"])"));
}

TEST_F(WsMessages, EchoToolsThroughStepCountSteps) {
    json r = send({{"type", "step"}, {"data", {{"type", "list_tools"}}}});
    ASSERT_EQ(r["data"]["observation"]["tools"].size(), 2u);
    EXPECT_TRUE(r["data"]["observation"]["tools"][0]["input_schema"].is_object());
    r = send({{"type", "step"}, {"data", {{"type", "call_tool"}, {"tool_name", "nope"}, {"arguments", json::object()}}}});
    EXPECT_TRUE(r["data"]["observation"]["result"].is_null());
    EXPECT_EQ(r["data"]["observation"]["error"]["error_type"], "tool_not_found");
    EXPECT_EQ(r["data"]["observation"]["error"]["message"], "Unknown tool: 'nope'");
    r = send({{"type", "mcp"}, {"data", {{"jsonrpc", "2.0"}, {"method", "tools/list"}, {"id", 1}}}});
    EXPECT_EQ(r["type"], "mcp");
    EXPECT_EQ(r["data"]["result"]["tools"].size(), 2u);
    EXPECT_EQ(send({{"type", "state"}})["data"]["step_count"], 2); // mcp did not count
}

TEST_F(WsMessages, McpOnWsIsBoundToTheSession) {
    json r = send({{"type", "mcp"}, {"data", {{"jsonrpc", "2.0"}, {"method", "openenv/session/create"}, {"id", "a"}}}});
    EXPECT_EQ(r["data"]["result"]["session_id"], session->id());
    r = send({{"type", "mcp"}, {"data", {{"jsonrpc", "2.0"}, {"method", "openenv/session/close"},
                                         {"params", {{"session_id", session->id()}}}, {"id", 2}}}});
    EXPECT_EQ(r["data"]["error"]["code"], -32600);
}
