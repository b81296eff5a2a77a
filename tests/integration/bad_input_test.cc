// Bad input gets a clear status naming the field, and the world keeps going with nothing
// it held lost.

#include <cmath>
#include <limits>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

class BadInputTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    CreateWorld("w", "default");
  }

  grpc::Status AddBody(const v1::Body& body) {
    grpc::ClientContext ctx;
    v1::CreateBodyRequest req;
    req.set_parent("worlds/w");
    *req.mutable_body() = body;
    v1::Body out;
    return scenes_->CreateBody(&ctx, req, &out);
  }

  v1::World Get() {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("worlds/w");
    v1::World w;
    EXPECT_TRUE(worlds_->GetWorld(&ctx, req, &w).ok());
    return w;
  }
};

v1::Body ValidBall() {
  v1::Body b;
  b.mutable_shape()->mutable_sphere()->set_radius(0.1);
  b.mutable_pose()->mutable_position()->set_y(5.0);
  return b;
}

void ExpectInvalid(const grpc::Status& s, const std::string& field) {
  EXPECT_EQ(s.error_code(), grpc::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(field), std::string::npos)
      << "message \"" << s.error_message() << "\" does not name " << field;
}

TEST_F(BadInputTest, NonFiniteNumbersAnywhere) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  v1::Body b = ValidBall();
  b.mutable_pose()->mutable_position()->set_x(nan);
  ExpectInvalid(AddBody(b), "body.pose.position.x");
  b = ValidBall();
  b.mutable_linear_velocity()->set_z(inf);
  ExpectInvalid(AddBody(b), "body.linear_velocity.z");
  b = ValidBall();
  b.mutable_angular_velocity()->set_y(-inf);
  ExpectInvalid(AddBody(b), "body.angular_velocity.y");
  b = ValidBall();
  b.mutable_material()->set_density(nan);
  ExpectInvalid(AddBody(b), "body.material.density");
  b = ValidBall();
  b.mutable_shape()->mutable_sphere()->set_radius(inf);
  ExpectInvalid(AddBody(b), "body.shape.sphere.radius");

  grpc::ClientContext ctx;
  v1::UpdateWorldRequest req;
  req.mutable_world()->set_name("worlds/w");
  req.mutable_world()->mutable_settings()->mutable_gravity()->set_y(nan);
  req.mutable_update_mask()->add_paths("settings.gravity");
  v1::World out;
  ExpectInvalid(worlds_->UpdateWorld(&ctx, req, &out), "world.settings.gravity.y");
}

TEST_F(BadInputTest, NonPositiveSizesAndMasses) {
  v1::Body b = ValidBall();
  b.mutable_shape()->mutable_sphere()->set_radius(0.0);
  ExpectInvalid(AddBody(b), "body.shape.sphere.radius");
  b = ValidBall();
  b.mutable_shape()->mutable_box()->mutable_half_extents()->set_x(1.0);
  b.mutable_shape()->mutable_box()->mutable_half_extents()->set_y(-1.0);
  b.mutable_shape()->mutable_box()->mutable_half_extents()->set_z(1.0);
  ExpectInvalid(AddBody(b), "body.shape.box.half_extents.y");
  b = ValidBall();
  b.mutable_material()->set_mass(-2.0);
  ExpectInvalid(AddBody(b), "body.material.mass");
  b = ValidBall();
  b.mutable_material()->set_density(0.0);
  ExpectInvalid(AddBody(b), "body.material.density");
  b = ValidBall();
  b.clear_shape();
  ExpectInvalid(AddBody(b), "body.shape");
  b = ValidBall();
  b.mutable_shape()->mutable_plane();
  ExpectInvalid(AddBody(b), "body.kind");  // a dynamic plane
}

TEST_F(BadInputTest, UnnormalizedQuaternion) {
  v1::Body b = ValidBall();
  b.mutable_pose()->mutable_orientation()->set_w(0.5);
  ExpectInvalid(AddBody(b), "body.pose.orientation");
}

TEST_F(BadInputTest, UnknownIdsAndMalformedNames) {
  {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("worlds/nope");
    v1::World w;
    EXPECT_EQ(worlds_->GetWorld(&ctx, req, &w).error_code(), grpc::NOT_FOUND);
  }
  {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("planets/x");
    v1::World w;
    ExpectInvalid(worlds_->GetWorld(&ctx, req, &w), "name");
  }
  {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/w/bodies/ghost");
    req.mutable_update_mask()->add_paths("linear_velocity");
    v1::Body out;
    EXPECT_EQ(scenes_->UpdateBody(&ctx, req, &out).error_code(), grpc::NOT_FOUND);
  }
  {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/w/bodies/ball-0");
    req.mutable_update_mask()->add_paths("shape");
    v1::Body out;
    ExpectInvalid(scenes_->UpdateBody(&ctx, req, &out), "update_mask.paths[0]");
  }
  {
    grpc::ClientContext ctx;
    v1::CreateConstraintRequest req;
    req.set_parent("worlds/w");
    req.mutable_constraint()->mutable_point()->set_body_a("ghost");
    v1::Constraint out;
    EXPECT_EQ(scenes_->CreateConstraint(&ctx, req, &out).error_code(), grpc::NOT_FOUND);
  }
  grpc::ClientContext ctx;
  v1::CreateWorldRequest req;
  req.set_scene_name("no-such-scene");
  v1::World w;
  ExpectInvalid(worlds_->CreateWorld(&ctx, req, &w), "scene_name");
}

TEST_F(BadInputTest, MalformedSceneReferences) {
  v1::Scene scene = BallScene();
  scene.add_constraints()->mutable_point()->set_body_a("missing");
  v1::World w;
  const grpc::Status s = CreateWorld("broken", scene, &w);
  EXPECT_EQ(s.error_code(), grpc::NOT_FOUND);
  EXPECT_NE(s.error_message().find("constraints[0]"), std::string::npos) << s.error_message();
  scene = BallScene();
  scene.mutable_settings()->set_rate_hz(5000);
  ExpectInvalid(CreateWorld("fast", scene, &w), "scene.settings.rate_hz");
}

TEST_F(BadInputTest, LimitsAndOversizedRequests) {
  // More bodies than a world may hold (the fixture allows 200).
  v1::Scene big = BallScene();
  for (int i = 0; i < 250; ++i) *big.add_bodies() = ValidBall();
  v1::World w;
  EXPECT_EQ(CreateWorld("big", big, &w).error_code(), grpc::RESOURCE_EXHAUSTED);

  // A request larger than the message limit (the fixture allows 1 MiB).
  v1::Scene huge = BallScene();
  for (int i = 0; i < 30000; ++i) {
    v1::Body* b = huge.add_bodies();
    *b = ValidBall();
    b->set_id(absl::StrCat("b", i));
  }
  EXPECT_EQ(CreateWorld("huge", huge, &w).error_code(), grpc::RESOURCE_EXHAUSTED);

  // More worlds than the server may host (the fixture allows 8; one exists).
  for (int i = 0; i < 7; ++i) CreateWorld(absl::StrCat("w", i), "default");
  grpc::ClientContext ctx;
  v1::CreateWorldRequest req;
  req.set_scene_name("default");
  EXPECT_EQ(worlds_->CreateWorld(&ctx, req, &w).error_code(), grpc::RESOURCE_EXHAUSTED);
}

TEST_F(BadInputTest, WorldKeepsTickingAndLosesNothing) {
  const v1::World before = Get();
  v1::Body b = ValidBall();
  b.mutable_pose()->mutable_position()->set_x(std::nan(""));
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(AddBody(b).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const v1::World after = Get();
  EXPECT_EQ(after.body_count(), before.body_count());
  EXPECT_EQ(after.constraint_count(), before.constraint_count());
  EXPECT_GT(after.tick(), before.tick());
  // Every body's state is finite.
  v1::Frame frame;
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/w");
  auto reader = sessions_->Watch(&ctx, req);
  ASSERT_TRUE(reader->Read(&frame));
  ctx.TryCancel();
  reader->Finish();
  EXPECT_EQ(frame.bodies_size(), before.body_count());
  for (const auto& s : frame.bodies()) {
    EXPECT_TRUE(std::isfinite(s.pose().position().y())) << s.id();
  }
}

}  // namespace
}  // namespace ligature::testing
