#include "json_io.h"

#include <gtest/gtest.h>

#include <cmath>

using envhost::json;
using envhost::JsonParseError;
using envhost::parse_json;

TEST(JsonIo, ParsesPlainJson) {
    json j;
    JsonParseError e;
    ASSERT_TRUE(parse_json(R"({"a":[1,2.5,"x"],"b":null})", j, e));
    EXPECT_EQ(j["a"][1], 2.5);
    EXPECT_TRUE(j["b"].is_null());
}

TEST(JsonIo, AcceptsPythonSpecialFloats) {
    json j;
    JsonParseError e;
    ASSERT_TRUE(parse_json(R"({"n":NaN,"p":Infinity,"m":-Infinity,"s":"NaN Infinity"})", j, e)) << e.message;
    EXPECT_TRUE(std::isnan(j["n"].get<double>()));
    EXPECT_EQ(j["p"].get<double>(), INFINITY);
    EXPECT_EQ(j["m"].get<double>(), -INFINITY);
    EXPECT_EQ(j["s"], "NaN Infinity"); // strings are left alone
}

TEST(JsonIo, AcceptsSurrogatePairEscapes) {
    json j;
    JsonParseError e;
    ASSERT_TRUE(parse_json(R"({"e":"\ud83d\ude00"})", j, e));
    EXPECT_EQ(j["e"].get<std::string>(), "\xF0\x9F\x98\x80");
}

TEST(JsonIo, ReportsMalformedInputWithOffset) {
    json j;
    JsonParseError e;
    EXPECT_FALSE(parse_json(R"({"a": 1,})", j, e));
    EXPECT_FALSE(e.message.empty());
    EXPECT_GT(e.byte_offset, 0u);
    EXPECT_FALSE(parse_json("", j, e));
    EXPECT_FALSE(parse_json("\xff\xfe", j, e));
}

TEST(JsonIo, RefusesExcessiveNesting) {
    json j;
    JsonParseError e;
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_FALSE(parse_json(deep, j, e));
    EXPECT_NE(e.message.find("nested deeper"), std::string::npos);
    const std::string ok = std::string(50, '[') + std::string(50, ']');
    EXPECT_TRUE(parse_json(ok, j, e));
}
