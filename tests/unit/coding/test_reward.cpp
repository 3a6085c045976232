#include "reward.hpp"

#include <gtest/gtest.h>

#include <string>

using coding::code_reward;

namespace {
std::string lines(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    return s;
}
} // namespace

TEST(CodingReward, AllEightValuesOfTheTable) {
    const std::string long_safe = lines(20), long_bad = "import os\n" + lines(50);
    EXPECT_DOUBLE_EQ(code_reward("x = 5", true), 0.1);
    EXPECT_DOUBLE_EQ(code_reward(long_safe, true), 0.0);
    EXPECT_DOUBLE_EQ(code_reward("print('unclosed", false), -0.1);
    EXPECT_DOUBLE_EQ(code_reward(long_safe, false), -0.2);
    EXPECT_DOUBLE_EQ(code_reward("import os", true), -0.9);
    EXPECT_DOUBLE_EQ(code_reward(long_bad, true), -1.0);
    EXPECT_DOUBLE_EQ(code_reward("import os(", false), -1.1);
    EXPECT_DOUBLE_EQ(code_reward(long_bad, false), -1.2);
}

TEST(CodingReward, SafetyPatternsAsTheReferenceRegexes) {
    for (const char* bad : {"import os", "import   subprocess", "import\tos.path", "eval('1+1')", "exec('x=1')",
                            "__import__('sys')", "with open('f.txt') as f: pass", "import osmosis",
                            "import\xe3\x80\x80os" /* U+3000 is \s in Python */})
        EXPECT_DOUBLE_EQ(coding::safety_reward(bad), -1.0) << bad;
    for (const char* ok : {"importos", "from os import path", "x = 'evaluate'", "reopen = 1", "print('Hello')",
                           "y = 10 + 5", "import math"})
        EXPECT_DOUBLE_EQ(coding::safety_reward(ok), 0.0) << ok;
}

TEST(CodingReward, LengthCountsCodePointsAfterStrip) {
    const std::string hundred(100, 'a');
    EXPECT_DOUBLE_EQ(code_reward(hundred, true), 0.1);
    EXPECT_DOUBLE_EQ(code_reward("  \n" + hundred + "\n\t ", true), 0.1); // stripped
    EXPECT_DOUBLE_EQ(code_reward(hundred + "a", true), 0.0);
    std::string accents; // 100 x U+00E9: 200 bytes but 100 code points
    for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
    EXPECT_DOUBLE_EQ(code_reward(accents, true), 0.1);
    EXPECT_DOUBLE_EQ(code_reward(accents + "\xc3\xa9", true), 0.0);
}
