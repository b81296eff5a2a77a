// Edits per second per client and the divergence guard, through a real server.

#include <gtest/gtest.h>

#include <cmath>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Edit CreateBall(const std::string& id) {
  v1::Edit e;
  v1::Body* b = e.mutable_create_body();
  b->set_id(id);
  b->mutable_shape()->mutable_sphere()->set_radius(0.1);
  b->mutable_pose()->mutable_position()->set_y(2.0);
  return e;
}

class EditLimitTest : public ServerTest {
  void Customize(ServerOptions* options) override { options->max_edits_per_second = 3; }
};

// A batch larger than a client's burst (one second's worth) is refused whole, naming the
// limit; one that fits passes. (Batches make this independent of timing.)
TEST_F(EditLimitTest, BatchBeyondTheRateIsRefusedNamingTheLimit) {
  v1::World world;
  ASSERT_TRUE(CreateWorld("w", BallScene(), &world).ok());
  v1::BatchEditRequest req;
  req.set_parent("worlds/w");
  for (const char* id : {"a", "b", "c", "d"}) *req.add_edits() = CreateBall(id);
  {
    grpc::ClientContext ctx;
    v1::BatchEditResponse resp;
    const grpc::Status s = scenes_->BatchEdit(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(s.error_message().find("edits per second per client"), std::string::npos)
        << s.error_message();
  }
  req.mutable_edits()->RemoveLast();
  grpc::ClientContext ctx;
  v1::BatchEditResponse resp;
  const grpc::Status s = scenes_->BatchEdit(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.created_size(), 3);
}

class GuardTest : public ServerTest {
  void Customize(ServerOptions* options) override {
    options->worlds.guard.bounds.max_speed = 50.0;  // m/s
  }
};

// A ball given 100 m/s (accepted by the API, beyond this server's 50 m/s bound): StepWorld
// stops at the diverged tick, and the frame shows the rolled-back state and the event;
// GetWorld counts it.
TEST_F(GuardTest, StepWorldReportsTheRollback) {
  v1::World world;
  ASSERT_TRUE(CreateWorld("w", BallScene(), &world).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/w", 3, &frame).ok());
  EXPECT_FALSE(frame.has_divergence());
  {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/w/bodies/ball");
    req.mutable_body()->mutable_linear_velocity()->set_x(100.0);
    req.mutable_update_mask()->add_paths("linear_velocity");
    v1::Body out;
    const grpc::Status s = scenes_->UpdateBody(&ctx, req, &out);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  ASSERT_TRUE(Step("worlds/w", 5, &frame).ok());
  ASSERT_TRUE(frame.has_divergence());
  EXPECT_EQ(frame.divergence().body(), "ball");
  EXPECT_EQ(frame.divergence().reason(), "linear velocity beyond the bound");
  EXPECT_EQ(frame.divergence().diverged_tick(), 4u);
  EXPECT_EQ(frame.divergence().restored_tick(), 3u);
  EXPECT_EQ(frame.tick(), 3u);
  for (const v1::BodyState& b : frame.bodies()) {
    if (b.id() == "ball") {
      EXPECT_LT(std::abs(b.linear_velocity().x()), 1.0);
    }
  }
  grpc::ClientContext ctx;
  v1::GetWorldRequest req;
  req.set_name("worlds/w");
  v1::World got;
  ASSERT_TRUE(worlds_->GetWorld(&ctx, req, &got).ok());
  EXPECT_EQ(got.divergences(), 1u);
}

}  // namespace
}  // namespace ligature::testing
