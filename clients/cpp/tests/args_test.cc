#include "clients/cpp/cli/args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ligature::client::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<FlagSpec> kSpecs = {{"pos"}, {"rate"}, {"json", false}};

TEST(ParseArgsTest, SeparatesFlagsFromPositionals) {
  absl::StatusOr<ParsedArgs> args =
      ParseArgs({"w", "--pos", "1,2,3", "ball", "--rate=30", "--json"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(args->positional, ElementsAre("w", "ball"));
  ASSERT_NE(args->Find("pos"), nullptr);
  EXPECT_EQ(*args->Find("pos"), "1,2,3");
  EXPECT_EQ(*args->Find("rate"), "30");
  EXPECT_TRUE(args->Has("json"));
}

TEST(ParseArgsTest, ValueMayStartWithDash) {
  absl::StatusOr<ParsedArgs> args = ParseArgs({"--pos", "-1,-2,-3", "-5"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args->Find("pos"), "-1,-2,-3");
  EXPECT_THAT(args->positional, ElementsAre("-5"));
}

TEST(ParseArgsTest, DoubleDashEndsFlags) {
  absl::StatusOr<ParsedArgs> args = ParseArgs({"--", "--json"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(args->positional, ElementsAre("--json"));
  EXPECT_FALSE(args->Has("json"));
}

TEST(ParseArgsTest, RejectsBadFlags) {
  EXPECT_THAT(ParseArgs({"--nope"}, kSpecs).status().message(), HasSubstr("unknown flag"));
  EXPECT_THAT(ParseArgs({"--pos"}, kSpecs).status().message(), HasSubstr("needs a value"));
  EXPECT_THAT(ParseArgs({"--json=true"}, kSpecs).status().message(), HasSubstr("takes no value"));
  EXPECT_THAT(ParseArgs({"--rate", "1", "--rate=2"}, kSpecs).status().message(),
              HasSubstr("twice"));
}

}  // namespace
}  // namespace ligature::client::cli
