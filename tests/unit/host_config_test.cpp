#include "host_config.h"

#include <gtest/gtest.h>

using namespace envhost;

TEST(HostConfig, AppliesKnownKeys) {
    HostConfig c;
    c.apply_json(json::parse(R"({"port":9000,"mode":"production","plugin_dirs":["/a"],
      "environments":{"echo_env":{"max_sessions":3,"idle_timeout_s":1.5,"config":{"k":1}}}})"));
    EXPECT_EQ(c.port, 9000u);
    EXPECT_EQ(c.mode, ServeMode::Production);
    EnvSettings s = c.settings_for("echo_env");
    EXPECT_EQ(s.max_sessions, 3u);
    EXPECT_EQ(s.idle_timeout_s, 1.5);
    EXPECT_EQ(s.plugin_config["k"], 1);
    EXPECT_EQ(c.settings_for("other").max_sessions, 0u);
}

TEST(HostConfig, RejectsUnknownKeysAndBadTypes) {
    HostConfig c;
    EXPECT_THROW(c.apply_json(json::parse(R"({"prot":1})")), ConfigError);
    EXPECT_THROW(c.apply_json(json::parse(R"({"port":"x"})")), ConfigError);
    EXPECT_THROW(c.apply_json(json::parse(R"({"mode":"fast"})")), ConfigError);
    EXPECT_THROW(c.apply_json(json::parse(R"({"environments":{"e":{"max_sessions":0}}})")), ConfigError);
    EXPECT_THROW(c.apply_json(json::parse(R"({"environments":{"e":{"maxsessions":2}}})")), ConfigError);
    EXPECT_THROW(c.apply_file("/nonexistent/envhost.json"), ConfigError);
}
