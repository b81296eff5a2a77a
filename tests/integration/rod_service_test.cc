// Rods over real gRPC: a rope created as a body, held by rod constraints, dragged by a
// kinematic body, stepped, seen in frames, exported and re-created; bad rod input gets
// INVALID_ARGUMENT or NOT_FOUND naming the field, and changes nothing.

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Body Rope(const std::string& id) {
  v1::Body b;
  b.set_id(id);
  v1::Rod* rod = b.mutable_rod();
  v1::Vec3* p0 = rod->add_points();
  p0->set_y(2.0);
  v1::Vec3* p1 = rod->add_points();
  p1->set_x(1.0);
  p1->set_y(2.0);
  rod->set_control_points(20);
  rod->mutable_material()->set_radius(0.002);
  rod->mutable_material()->set_damping(1.0);
  return b;
}

v1::Constraint RodHold(const std::string& id, const std::string& rod, double u, double x,
                       double y) {
  v1::Constraint c;
  c.set_id(id);
  v1::RodConstraint* r = c.mutable_rod();
  r->set_kind(v1::ROD_CONSTRAINT_KIND_POSITION);
  r->mutable_a()->set_body(rod);
  r->mutable_a()->set_u(u);
  r->mutable_target()->set_x(x);
  r->mutable_target()->set_y(y);
  return c;
}

class RodServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("r", BallScene(), &w).ok());
  }
  grpc::Status AddBody(const v1::Body& body) { return CreateBodyIn("worlds/r", body); }
  grpc::Status AddConstraint(const v1::Constraint& c) { return CreateConstraintIn("worlds/r", c); }
  int ConstraintCount() {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("worlds/r");
    v1::World w;
    EXPECT_TRUE(worlds_->GetWorld(&ctx, req, &w).ok());
    return w.constraint_count();
  }
};

TEST_F(RodServiceTest, RopeHangsFromItsHoldsAndShowsInFrames) {
  ASSERT_TRUE(AddBody(Rope("rope")).ok());
  ASSERT_TRUE(AddConstraint(RodHold("left", "rope", 0.0, 0.0, 2.0)).ok());
  ASSERT_TRUE(AddConstraint(RodHold("right", "rope", 1.0, 0.8, 2.0)).ok());
  v1::Constraint pearl;
  pearl.set_id("bead");
  pearl.mutable_pearl()->mutable_at()->set_body("rope");
  pearl.mutable_pearl()->mutable_at()->set_u(0.3);
  pearl.mutable_pearl()->set_mass(0.01);
  ASSERT_TRUE(AddConstraint(pearl).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/r", 100, &frame).ok());
  const v1::BodyState* rope = FindBody(frame, "rope");
  ASSERT_NE(rope, nullptr);
  ASSERT_GE(rope->rod_points_size(), 2);
  EXPECT_EQ(rope->rod_points_size(), rope->rod_twist_size());
  // Ends on their holds, the middle sagging below them.
  const v1::Vec3& first = rope->rod_points(0);
  const v1::Vec3& last = rope->rod_points(rope->rod_points_size() - 1);
  EXPECT_NEAR(first.y(), 2.0, 1e-9);
  EXPECT_NEAR(last.x(), 0.8, 1e-9);
  EXPECT_LT(rope->rod_points(rope->rod_points_size() / 2).y(), 1.9);
  EXPECT_LT(frame.rods().max_violation(), 1e-9);
  EXPECT_GT(frame.rods().unknowns(), 60);  // 20 control points x 3 and the holds
  ASSERT_EQ(frame.pearls_size(), 1);
  EXPECT_EQ(frame.pearls(0).id(), "bead");
  // The bead slid towards the low middle.
  EXPECT_GT(frame.pearls(0).u(), 0.3);
}

TEST_F(RodServiceTest, KinematicBodyDragsARopeEnd) {
  ASSERT_TRUE(AddBody(Rope("rope")).ok());
  v1::Body hand;
  hand.set_id("hand");
  hand.set_kind(v1::BODY_KIND_KINEMATIC);
  hand.mutable_shape()->mutable_sphere()->set_radius(0.05);
  hand.mutable_pose()->mutable_position()->set_y(2.0);
  hand.mutable_linear_velocity()->set_z(1.0);
  ASSERT_TRUE(AddBody(hand).ok());
  v1::Constraint grip = RodHold("grip", "rope", 0.0, 0.0, 0.0);
  grip.mutable_rod()->set_follow_body("hand");
  ASSERT_TRUE(AddConstraint(grip).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/r", 50, &frame).ok());
  const v1::BodyState* rope = FindBody(frame, "rope");
  const v1::BodyState* h = FindBody(frame, "hand");
  ASSERT_NE(rope, nullptr);
  ASSERT_NE(h, nullptr);
  EXPECT_NEAR(h->pose().position().z(), 0.5, 1e-9);
  EXPECT_NEAR(rope->rod_points(0).z(), h->pose().position().z(), 1e-9);
  EXPECT_NEAR(rope->rod_points(0).y(), 2.0, 1e-9);
}

TEST_F(RodServiceTest, ExportRecreatesRodsAndTheirConstraints) {
  ASSERT_TRUE(AddBody(Rope("rope")).ok());
  ASSERT_TRUE(AddConstraint(RodHold("left", "rope", 0.0, 0.0, 2.0)).ok());
  grpc::ClientContext ctx;
  v1::ExportSceneRequest req;
  req.set_parent("worlds/r");
  v1::Scene scene;
  ASSERT_TRUE(scenes_->ExportScene(&ctx, req, &scene).ok());
  v1::World copy;
  ASSERT_TRUE(CreateWorld("copy", scene, &copy).ok());
  EXPECT_EQ(copy.body_count(), 3);
  EXPECT_EQ(copy.constraint_count(), 1);
}

TEST_F(RodServiceTest, BadRodInputNamesTheFieldAndChangesNothing) {
  ASSERT_TRUE(AddBody(Rope("rope")).ok());
  const int before = ConstraintCount();
  auto expect = [&](const grpc::Status& s, grpc::StatusCode code, const std::string& field) {
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_NE(s.error_message().find(field), std::string::npos) << s.error_message();
  };
  expect(AddConstraint(RodHold("far", "rope", 1.5, 0, 0)), grpc::INVALID_ARGUMENT, "a.u");
  expect(AddConstraint(RodHold("neg", "rope", -0.1, 0, 0)), grpc::INVALID_ARGUMENT, "rod.a.u");
  expect(AddConstraint(RodHold("ghost", "nothing", 0.5, 0, 0)), grpc::NOT_FOUND, "a.rod");
  v1::Constraint self;
  self.set_id("self");
  self.mutable_rod()->set_kind(v1::ROD_CONSTRAINT_KIND_FUSION);
  self.mutable_rod()->mutable_a()->set_body("rope");
  self.mutable_rod()->mutable_a()->set_u(0.5);
  *self.mutable_rod()->mutable_b() = self.rod().a();
  expect(AddConstraint(self), grpc::INVALID_ARGUMENT, "b");
  v1::Constraint plane = RodHold("plane", "rope", 0.5, 0, 0);
  plane.mutable_rod()->set_kind(v1::ROD_CONSTRAINT_KIND_PLANE);
  expect(AddConstraint(plane), grpc::INVALID_ARGUMENT, "direction");
  v1::Constraint unknown = RodHold("unknown", "rope", 0.5, 0, 0);
  unknown.mutable_rod()->set_kind(v1::ROD_CONSTRAINT_KIND_UNSPECIFIED);
  expect(AddConstraint(unknown), grpc::INVALID_ARGUMENT, "rod.kind");
  v1::Constraint follow = RodHold("follow", "rope", 0.5, 0, 0);
  follow.mutable_rod()->set_follow_body("nobody");
  expect(AddConstraint(follow), grpc::NOT_FOUND, "follow_body");
  EXPECT_EQ(ConstraintCount(), before);

  v1::Body bad = Rope("bad");
  bad.mutable_rod()->mutable_material()->set_radius(-1.0);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.rod.material.radius");
  bad = Rope("bad");
  bad.mutable_rod()->clear_points();
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.rod.points");
  bad = Rope("bad");
  bad.mutable_rod()->set_control_points(3);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.rod.control_points");
  // The world still steps and its rope still holds.
  ASSERT_TRUE(AddConstraint(RodHold("left", "rope", 0.0, 0.0, 2.0)).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/r", 10, &frame).ok());
  EXPECT_LT(frame.rods().max_violation(), 1e-9);
}

}  // namespace
}  // namespace ligature::testing
