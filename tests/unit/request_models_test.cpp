#include "request_models.h"

#include <gtest/gtest.h>

using namespace envhost;

TEST(ResetOptions, PassesOnlyGivenKeysAndCoercesSeed) {
    json options;
    EXPECT_TRUE(check_reset_options(nullptr, json::array({"body"}), options).empty());
    EXPECT_EQ(options, json::object());
    EXPECT_TRUE(check_reset_options({{"seed", "42"}, {"extra", 1}}, json::array({"body"}), options).empty());
    EXPECT_EQ(options, json({{"seed", 42}, {"extra", 1}}));
    EXPECT_TRUE(check_reset_options({{"seed", 42.0}}, json::array({"body"}), options).empty());
    EXPECT_EQ(options["seed"], 42);
    EXPECT_TRUE(check_reset_options({{"seed", true}}, json::array({"body"}), options).empty());
    EXPECT_EQ(options["seed"], 1);
}

TEST(ResetOptions, RejectsBadSeedAndLongEpisodeId) {
    json options;
    json e = check_reset_options({{"seed", -1}}, json::array({"body"}), options);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0]["type"], "greater_than_equal");
    EXPECT_EQ(e[0]["loc"], json::parse(R"(["body","seed"])"));
    EXPECT_EQ(check_reset_options({{"seed", "abc"}}, json::array({"body"}), options)[0]["type"], "int_parsing");
    EXPECT_EQ(check_reset_options({{"seed", 1.5}}, json::array({"body"}), options)[0]["type"], "int_from_float");
    e = check_reset_options({{"episode_id", std::string(256, 'x')}}, json::array({"data"}), options);
    EXPECT_EQ(e[0]["type"], "string_too_long");
    EXPECT_EQ(e[0]["loc"], json::parse(R"(["data","episode_id"])"));
    EXPECT_EQ(check_reset_options(json::array(), json::array({"body"}), options)[0]["type"], "model_attributes_type");
}

TEST(StepRequestModel, RequiresAnActionObject) {
    StepRequest sr;
    json e = check_step_request(json::object(), sr);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0]["type"], "missing");
    EXPECT_EQ(e[0]["loc"], json::parse(R"(["body","action"])"));
    EXPECT_EQ(check_step_request({{"action", 3}}, sr)[0]["type"], "dict_type");
}

TEST(StepRequestModel, TimeoutMustBePositive) {
    StepRequest sr;
    EXPECT_EQ(check_step_request({{"action", json::object()}, {"timeout_s", 0}}, sr)[0]["type"], "greater_than");
    EXPECT_TRUE(check_step_request({{"action", json::object()}, {"timeout_s", "2.5"}, {"extra", 1}}, sr).empty());
    EXPECT_EQ(sr.timeout_s.value(), 2.5);
}

TEST(HttpObservation, RewardBecomesFloat) {
    EXPECT_TRUE(http_observation({{"reward", 1}})["reward"].is_number_float());
    EXPECT_EQ(http_observation({{"reward", true}})["reward"], 1.0);
    EXPECT_TRUE(http_observation({{"reward", nullptr}})["reward"].is_null());
}
