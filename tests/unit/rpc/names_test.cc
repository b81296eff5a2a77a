#include "server/rpc/names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// Child resource names are worlds/{world}/{collection}/{id}.
TEST(NamesTest, FormatChildNames) {
  EXPECT_EQ(BodyName("lab", "ball-1"), "worlds/lab/bodies/ball-1");
  EXPECT_EQ(ConstraintName("lab", "pin"), "worlds/lab/constraints/pin");
}

// worlds/{world} gives the world id.
TEST(NamesTest, ParseWorldName) {
  auto id = ParseWorldName("worlds/lab-2", "name");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "lab-2");
}

// Malformed world names are INVALID_ARGUMENT and the message starts with the field.
TEST(NamesTest, ParseWorldNameErrorsNameTheField) {
  for (const char* bad : {"", "lab", "world/lab", "worlds/", "worlds/lab/", "worlds/lab/bodies/b",
                          "/worlds/lab", "worlds/Lab", "worlds/a b"}) {
    SCOPED_TRACE(bad);
    auto id = ParseWorldName(bad, "parent");
    EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(id.status()), StartsWith("parent: "));
  }
  EXPECT_THAT(Message(ParseWorldName("lab", "parent").status()), HasSubstr("\"lab\""));
}

// worlds/{world}/{collection}/{id} gives both ids.
TEST(NamesTest, ParseChildName) {
  auto body = ParseChildName("worlds/lab/bodies/ball_3", "bodies", "body.name");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->world, "lab");
  EXPECT_EQ(body->child, "ball_3");
  auto c = ParseChildName("worlds/w1/constraints/pin", "constraints", "name");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->world, "w1");
  EXPECT_EQ(c->child, "pin");
}

// Formatting then parsing gives back the ids.
TEST(NamesTest, FormatThenParseRoundTrips) {
  auto parsed = ParseChildName(BodyName("w", "b"), "bodies", "name");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->world, "w");
  EXPECT_EQ(parsed->child, "b");
  parsed = ParseChildName(ConstraintName("w", "c"), "constraints", "name");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->child, "c");
}

// Malformed child names, or names of the other collection, are INVALID_ARGUMENT naming the
// field.
TEST(NamesTest, ParseChildNameErrorsNameTheField) {
  for (const char* bad :
       {"", "worlds/lab", "worlds/lab/bodies", "worlds/lab/bodies/", "worlds/lab/constraints/pin",
        "worlds/lab/bodies/b/x", "planets/lab/bodies/b", "worlds/LAB/bodies/b",
        "worlds/lab/bodies/B", "worlds//bodies/b"}) {
    SCOPED_TRACE(bad);
    auto parsed = ParseChildName(bad, "bodies", "body.name");
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(parsed.status()), StartsWith("body.name: "));
  }
  EXPECT_THAT(Message(ParseChildName("worlds/lab/constraints/pin", "bodies", "name").status()),
              HasSubstr("worlds/{world}/bodies/{id}"));
}

}  // namespace
}  // namespace ligature
