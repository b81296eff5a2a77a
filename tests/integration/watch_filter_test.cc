// Watch with a region of interest and delta frames.

#include <gtest/gtest.h>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

// A paused world: a ball falling at x = 0 and a kinematic post standing still at x = 5.
class WatchFilterTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("w", BallAndPostScene(), &w).ok());
  }
  static std::vector<std::string> Ids(const v1::Frame& f) {
    std::vector<std::string> ids;
    for (const v1::BodyState& b : f.bodies()) ids.push_back(b.id());
    return ids;
  }
};

TEST_F(WatchFilterTest, RegionKeepsOnlyBodiesInside) {
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/w");
  req.mutable_region()->mutable_min()->set_x(4);
  req.mutable_region()->mutable_max()->set_x(6);
  req.mutable_region()->mutable_max()->set_y(2);
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  ASSERT_TRUE(reader->Read(&f));
  EXPECT_EQ(Ids(f), std::vector<std::string>{"post"});
  EXPECT_TRUE(f.key_frame());
  ctx.TryCancel();
  while (reader->Read(&f)) {
  }
  reader->Finish();
}

TEST_F(WatchFilterTest, DeltaFramesCarryOnlyMovedBodies) {
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/w");
  req.set_delta_threshold(1e-9);
  req.set_key_frame_interval(1000);
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  ASSERT_TRUE(reader->Read(&f));
  EXPECT_TRUE(f.key_frame());
  EXPECT_EQ(f.bodies_size(), 3);  // ground, ball, post
  v1::Frame stepped;
  ASSERT_TRUE(Step("worlds/w", 1, &stepped).ok());
  ASSERT_TRUE(reader->Read(&f));
  EXPECT_FALSE(f.key_frame());
  EXPECT_EQ(f.tick(), 1u);
  EXPECT_EQ(Ids(f), std::vector<std::string>{"ball"});
  ctx.TryCancel();
  while (reader->Read(&f)) {
  }
  reader->Finish();
}

TEST_F(WatchFilterTest, BadFilterNamesItsField) {
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/w");
  req.mutable_region()->mutable_min()->set_x(1);
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  EXPECT_FALSE(reader->Read(&f));
  const grpc::Status s = reader->Finish();
  EXPECT_EQ(s.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("region.max"), std::string::npos);
}

}  // namespace
}  // namespace ligature::testing
