#include "action_validator.h"

#include <gtest/gtest.h>

using envhost::ActionValidator;
using envhost::json;

namespace {

const json kSchema = json::parse(R"({"type":"object","additionalProperties":false,"required":["code"],
  "properties":{"code":{"type":"string"},"n":{"type":"integer","minimum":0},"flag":{"type":"boolean"},
                "label":{"type":"string","maxLength":3},"xs":{"type":"array","items":{"type":"integer"}}}})");

json only(const json& errors) {
    EXPECT_EQ(errors.size(), 1u) << errors.dump();
    return errors.empty() ? json() : errors[0];
}

} // namespace

TEST(ActionValidator, AcceptsAValidActionAndTheBaseMetadataField) {
    ActionValidator v(kSchema);
    EXPECT_TRUE(v.validate({{"code", "x"}}).empty());
    EXPECT_TRUE(v.validate({{"code", "x"}, {"metadata", json::object()}}).empty());
}

TEST(ActionValidator, MissingFieldIsPydanticMissing) {
    ActionValidator v(kSchema);
    json e = only(v.validate(json::object()));
    EXPECT_EQ(e["type"], "missing");
    EXPECT_EQ(e["loc"], json::array({"code"}));
    EXPECT_EQ(e["msg"], "Field required");
    EXPECT_EQ(e["input"], json::object());
}

TEST(ActionValidator, ExtraFieldIsExtraForbidden) {
    ActionValidator v(kSchema);
    json e = only(v.validate({{"code", "x"}, {"bogus", 1}}));
    EXPECT_EQ(e["type"], "extra_forbidden");
    EXPECT_EQ(e["loc"], json::array({"bogus"}));
    EXPECT_EQ(e["msg"], "Extra inputs are not permitted");
}

TEST(ActionValidator, WrongTypesUsePydanticWording) {
    ActionValidator v(kSchema);
    json e = only(v.validate({{"code", 5}}));
    EXPECT_EQ(e["type"], "string_type");
    EXPECT_EQ(e["msg"], "Input should be a valid string");
    EXPECT_EQ(e["input"], 5);
    EXPECT_EQ(only(v.validate({{"code", "x"}, {"n", "7"}}))["type"], "int_type");
    EXPECT_EQ(only(v.validate({{"code", "x"}, {"flag", 1}}))["type"], "bool_type");
}

TEST(ActionValidator, RangeAndLengthErrors) {
    ActionValidator v(kSchema);
    json e = only(v.validate({{"code", "x"}, {"n", -1}}));
    EXPECT_EQ(e["type"], "greater_than_equal");
    e = only(v.validate({{"code", "x"}, {"label", "toolong"}}));
    EXPECT_EQ(e["type"], "string_too_long");
    EXPECT_EQ(e["ctx"]["max_length"], 3);
}

TEST(ActionValidator, NestedLocationsIncludeIndexes) {
    ActionValidator v(kSchema);
    json e = only(v.validate({{"code", "x"}, {"xs", {1, "two", 3}}}));
    EXPECT_EQ(e["loc"], json::parse(R"(["xs",1])"));
    EXPECT_EQ(e["type"], "int_type");
}

TEST(ActionValidator, NonObjectAction) {
    ActionValidator v(kSchema);
    json errors = v.validate(json::array());
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors[0]["type"], "dict_type");
}
