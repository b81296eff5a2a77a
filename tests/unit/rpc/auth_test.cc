#include "server/rpc/auth.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace ligature {
namespace {

constexpr char kFile[] = R"(# token   role    world
view-all  viewer  *
edit-pile editor  pile
edit-pile viewer  other
boss      owner   *
)";

TEST(TokenStoreTest, ParsesRolesPerWorld) {
  auto tokens = TokenStore::Parse(kFile);
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  ASSERT_EQ(tokens->size(), 3u);
  const Grants& edit = tokens->at("edit-pile");
  EXPECT_TRUE(edit.Allows("pile", Role::kEditor));
  EXPECT_FALSE(edit.Allows("pile", Role::kOwner));
  EXPECT_TRUE(edit.Allows("other", Role::kViewer));
  EXPECT_FALSE(edit.Allows("other", Role::kEditor));
  EXPECT_FALSE(edit.Allows("third", Role::kViewer));
  const Grants& view = tokens->at("view-all");
  EXPECT_TRUE(view.Allows("anything", Role::kViewer));
  EXPECT_FALSE(view.Allows("anything", Role::kEditor));
  EXPECT_TRUE(tokens->at("boss").Allows("x", Role::kOwner));
  absl::Status denied = edit.Require("pile", Role::kOwner);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("owner role on world pile"), std::string::npos);
}

TEST(TokenStoreTest, BadLinesNameTheirNumber) {
  auto bad = TokenStore::Parse("ok viewer *\nnope admin *\n");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  EXPECT_FALSE(TokenStore::Parse("two words\n").ok());
}

// Identify: bearer tokens only; missing and unknown are UNAUTHENTICATED. Reload swaps the
// grants and keeps the old ones when the new file is bad.
TEST(TokenStoreTest, IdentifyAndReload) {
  const std::string path = ::testing::TempDir() + "/ligature_tokens_test";
  { std::ofstream(path) << kFile; }
  auto store = TokenStore::Load(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Identify(std::nullopt).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ((*store)->Identify("Basic abc").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ((*store)->Identify("Bearer nobody").status().code(),
            absl::StatusCode::kUnauthenticated);
  ASSERT_TRUE((*store)->Identify("Bearer boss").ok());

  { std::ofstream(path) << "newcomer editor pile\n"; }
  ASSERT_TRUE((*store)->Reload().ok());
  EXPECT_FALSE((*store)->Identify("Bearer boss").ok());
  ASSERT_TRUE((*store)->Identify("Bearer newcomer").ok());

  { std::ofstream(path) << "broken\n"; }
  EXPECT_FALSE((*store)->Reload().ok());
  EXPECT_TRUE((*store)->Identify("Bearer newcomer").ok());
  std::remove(path.c_str());
}

// A token with a time stops at it: accepted before, UNAUTHENTICATED from then on; the
// earliest of its lines holds; a malformed time names its line.
TEST(TokenStoreTest, TokensExpireAtTheirTime) {
  auto tokens = TokenStore::Parse(
      "temp viewer * until=2030-01-01T00:00:00Z\n"
      "temp editor demo until=2029-06-01T12:00:00Z\n"
      "forever owner *\n");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  ASSERT_TRUE(tokens->at("temp").expires.has_value());
  // 2029-06-01T12:00:00Z, the earlier of the two lines.
  EXPECT_EQ(*tokens->at("temp").expires, absl::FromUnixSeconds(1875009600));
  EXPECT_FALSE(tokens->at("forever").expires.has_value());

  const std::string path = ::testing::TempDir() + "/ligature_tokens_expiry_test";
  { std::ofstream(path) << "temp viewer * until=2030-01-01T00:00:00Z\nforever owner *\n"; }
  auto store = TokenStore::Load(path);
  ASSERT_TRUE(store.ok()) << store.status();
  const absl::Time at = absl::FromUnixSeconds(1893456000);  // 2030-01-01T00:00:00Z
  EXPECT_TRUE((*store)->Identify("Bearer temp", at - absl::Seconds(1)).ok());
  const auto expired = (*store)->Identify("Bearer temp", at);
  EXPECT_EQ(expired.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(expired.status().message().find("expired"), std::string::npos);
  EXPECT_TRUE((*store)->Identify("Bearer forever", at + absl::Hours(1e5)).ok());
  std::remove(path.c_str());

  const auto bad = TokenStore::Parse("ok viewer *\nlate viewer * until=tomorrow\n");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
}

}  // namespace
}  // namespace ligature
