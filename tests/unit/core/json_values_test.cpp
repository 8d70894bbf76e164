// Exact reads of JSON values: what a field takes at the edges of its type, and what it refuses.
#include "core/json_values.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace synclint::json_values {
namespace {

using nlohmann::json;

TEST(JsonValues, IntegersAreTakenWithinTheirRangeOnly) {
  EXPECT_EQ(exact<std::uint32_t>(json(4294967295u)), 4294967295u);
  EXPECT_FALSE(exact<std::uint32_t>(json(4294967296LL)));
  EXPECT_FALSE(exact<std::uint32_t>(json(-1)));
  EXPECT_EQ(exact<std::int32_t>(json(-2147483648LL)), std::numeric_limits<std::int32_t>::min());
  EXPECT_FALSE(exact<std::int32_t>(json(-2147483649LL)));
  EXPECT_FALSE(exact<std::int32_t>(json(2147483648LL)));
  EXPECT_EQ(exact<std::int64_t>(json(std::numeric_limits<std::int64_t>::min())), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(exact<std::int64_t>(json(std::numeric_limits<std::uint64_t>::max())));
  EXPECT_EQ(exact<std::uint64_t>(json(std::numeric_limits<std::uint64_t>::max())), std::numeric_limits<std::uint64_t>::max());
}

TEST(JsonValues, IntegersTakeIntegralFloatsButNoFractionsBoolsOrHugeValues) {
  EXPECT_EQ(exact<std::uint32_t>(json(3.0)), 3u);
  EXPECT_EQ(exact<std::int32_t>(json(-0.0)), 0);
  EXPECT_EQ(exact<std::int64_t>(json(-9223372036854775808.0)), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(exact<std::int64_t>(json(9223372036854775808.0)));   // 2^63
  EXPECT_FALSE(exact<std::uint64_t>(json(18446744073709551616.0)));  // 2^64
  EXPECT_FALSE(exact<std::uint32_t>(json(1.5)));
  EXPECT_FALSE(exact<std::uint32_t>(json(-1.0)));
  EXPECT_FALSE(exact<std::uint32_t>(json(1e300)));
  EXPECT_FALSE(exact<std::uint32_t>(json(true)));
  EXPECT_FALSE(exact<std::uint32_t>(json("3")));
  EXPECT_FALSE(exact<std::uint32_t>(json(nullptr)));
}

TEST(JsonValues, OtherTypesTakeOnlyTheirOwn) {
  EXPECT_EQ(exact<double>(json(3)), 3.0);
  EXPECT_EQ(exact<double>(json(1e300)), 1e300);
  EXPECT_FALSE(exact<double>(json(false)));
  EXPECT_FALSE(exact<double>(json("1")));
  EXPECT_EQ(exact<std::string>(json("x")), "x");
  EXPECT_FALSE(exact<std::string>(json(1)));
  EXPECT_EQ(exact<bool>(json(true)), true);
  EXPECT_FALSE(exact<bool>(json(1)));
  EXPECT_EQ(exact<std::vector<std::string>>(json::array({"a", "b"})), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(exact<std::vector<std::string>>(json::array({"a", 1})));
  EXPECT_FALSE(exact<std::vector<std::string>>(json("a")));
}

TEST(JsonValues, MembersFallBackWhenAbsentOrNullAndNameTheFieldOtherwise) {
  const json obj = {{"line", 1.5}, {"calls", nullptr}, {"name", std::string(60, 'n')}};
  EXPECT_EQ((member<std::uint64_t, std::runtime_error>(obj, "calls", 7, "r.json")), 7u);
  EXPECT_EQ((member<std::uint64_t, std::runtime_error>(obj, "absent", 8, "r.json")), 8u);
  try {
    member<std::uint32_t, std::runtime_error>(obj, "line", 0, "r.json: sites[0]");
    FAIL() << "accepted 1.5 as a line";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "r.json: sites[0]: field \"line\" must be an integer from 0 to 4294967295, not 1.5");
  }
  try {
    member<double, std::runtime_error>(obj, "name", 0.0, "r.json");
    FAIL() << "accepted a string as a number";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "r.json: field \"name\" must be a number, not \"" + std::string(36, 'n') + "...");
  }
}

}  // namespace
}  // namespace synclint::json_values
