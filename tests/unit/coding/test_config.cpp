#include "config.hpp"

#include <gtest/gtest.h>

using coding::Config;
using nlohmann::json;

TEST(CodingConfig, DefaultsMatchTheReadme) {
    const Config c = Config::parse(json::object());
    EXPECT_EQ(c.python, "/usr/bin/python3");
    EXPECT_TRUE(c.sandbox);
    EXPECT_DOUBLE_EQ(c.timeout_s, 30.0);
    EXPECT_EQ(c.memory_limit_mb, 512);
    EXPECT_EQ(c.output_limit_bytes, 1 << 20);
    EXPECT_FALSE(c.allowed_modules.has_value());
    EXPECT_EQ(Config::parse(nullptr).to_json(), c.to_json());
}

TEST(CodingConfig, AcceptsEveryKey) {
    const json j = {{"python", "/usr/bin/python3"}, {"sandbox", false}, {"timeout_s", 2.5},
                    {"max_timeout_s", 10}, {"cpu_time_limit_s", 3}, {"memory_limit_mb", 256},
                    {"max_processes", 8}, {"max_open_files", 64}, {"max_file_size_mb", 4},
                    {"scratch_size_mb", 8}, {"output_limit_bytes", 4096}, {"pool_size", 2},
                    {"allowed_modules", {"math", "re"}}, {"extra_ro_paths", {"/opt"}}};
    const Config c = Config::parse(j);
    EXPECT_FALSE(c.sandbox);
    EXPECT_DOUBLE_EQ(c.timeout_s, 2.5);
    EXPECT_EQ(c.max_processes, 8);
    ASSERT_TRUE(c.allowed_modules.has_value());
    EXPECT_EQ(c.allowed_modules->size(), 2u);
    EXPECT_EQ(Config::parse(c.to_json()).to_json(), c.to_json()); // round trip
}

TEST(CodingConfig, RejectsUnknownKeysByName) {
    try {
        Config::parse({{"timeout", 3}});
        FAIL() << "accepted an unknown key";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("unknown key 'timeout'"), std::string::npos) << e.what();
    }
}

TEST(CodingConfig, RejectsIllTypedAndOutOfRangeValues) {
    const json bad[] = {
        {{"timeout_s", "30"}},  {{"timeout_s", 0}},         {{"timeout_s", -1}},
        {{"sandbox", 1}},       {{"sandbox", "yes"}},       {{"memory_limit_mb", 1.5}},
        {{"memory_limit_mb", true}}, {{"pool_size", -1}},   {{"python", "python3"}},
        {{"python", 3}},        {{"allowed_modules", "math"}}, {{"allowed_modules", {1}}},
        {{"extra_ro_paths", {"relative"}}}, {{"extra_ro_paths", {"/a/../etc"}}},
        {{"timeout_s", 60}, {"max_timeout_s", 30}}, {{"output_limit_bytes", 10}},
        json::array(), json("x")};
    for (const auto& j : bad) EXPECT_THROW(Config::parse(j), std::invalid_argument) << j.dump();
    try {
        Config::parse({{"memory_limit_mb", "512"}});
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'memory_limit_mb' must be an integer"), std::string::npos) << e.what();
    }
}
