// SceneService over real gRPC: body and constraint edits, batches, export round trip.

#include <cmath>

#include "google/protobuf/util/message_differencer.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Body Ball(const std::string& id, double y) {
  v1::Body b;
  b.set_id(id);
  b.mutable_shape()->mutable_sphere()->set_radius(0.1);
  b.mutable_pose()->mutable_position()->set_y(y);
  return b;
}

class SceneServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("s", BallScene(), &w).ok());
  }

  grpc::Status AddBody(const v1::Body& body, v1::Body* out) {
    grpc::ClientContext ctx;
    v1::CreateBodyRequest req;
    req.set_parent("worlds/s");
    *req.mutable_body() = body;
    return scenes_->CreateBody(&ctx, req, out);
  }

  v1::Scene Export(const std::string& world) {
    grpc::ClientContext ctx;
    v1::ExportSceneRequest req;
    req.set_parent(world);
    v1::Scene scene;
    EXPECT_TRUE(scenes_->ExportScene(&ctx, req, &scene).ok());
    return scene;
  }
};

TEST_F(SceneServiceTest, CreateUpdateDeleteBody) {
  v1::Body created;
  ASSERT_TRUE(AddBody(Ball("extra", 3.0), &created).ok());
  EXPECT_EQ(created.name(), "worlds/s/bodies/extra");
  EXPECT_EQ(created.kind(), v1::BODY_KIND_DYNAMIC);

  // Server-chosen id when none is given.
  v1::Body unnamed;
  ASSERT_TRUE(AddBody(Ball("", 4.0), &unnamed).ok());
  EXPECT_FALSE(unnamed.id().empty());

  // Duplicate id.
  v1::Body dup;
  EXPECT_EQ(AddBody(Ball("extra", 1.0), &dup).error_code(), grpc::ALREADY_EXISTS);

  {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/s/bodies/extra");
    req.mutable_body()->mutable_linear_velocity()->set_x(2.0);
    req.mutable_body()->set_kind(v1::BODY_KIND_KINEMATIC);
    req.mutable_update_mask()->add_paths("linear_velocity");
    req.mutable_update_mask()->add_paths("kind");
    v1::Body out;
    ASSERT_TRUE(scenes_->UpdateBody(&ctx, req, &out).ok());
    EXPECT_EQ(out.linear_velocity().x(), 2.0);
    EXPECT_EQ(out.kind(), v1::BODY_KIND_KINEMATIC);
    EXPECT_EQ(out.pose().position().y(), 3.0);  // not in the mask: unchanged
  }
  // A kinematic body moves with its velocity and ignores gravity.
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 100, &frame).ok());
  for (const auto& b : frame.bodies()) {
    if (b.id() == "extra") {
      EXPECT_NEAR(b.pose().position().x(), 2.0, 1e-9);
      EXPECT_NEAR(b.pose().position().y(), 3.0, 1e-12);
    }
  }
  {
    grpc::ClientContext ctx;
    v1::DeleteBodyRequest req;
    req.set_name("worlds/s/bodies/extra");
    v1::DeleteBodyResponse resp;
    ASSERT_TRUE(scenes_->DeleteBody(&ctx, req, &resp).ok());
  }
  grpc::ClientContext ctx;
  v1::DeleteBodyRequest req;
  req.set_name("worlds/s/bodies/extra");
  v1::DeleteBodyResponse resp;
  EXPECT_EQ(scenes_->DeleteBody(&ctx, req, &resp).error_code(), grpc::NOT_FOUND);
}

TEST_F(SceneServiceTest, ConstraintHoldsAndGoesWithItsBody) {
  v1::Body bob;
  ASSERT_TRUE(AddBody(Ball("bob", 2.0), &bob).ok());
  v1::Constraint c;
  c.set_id("pin");
  c.mutable_point()->set_body_a("bob");
  c.mutable_point()->mutable_anchor_b()->set_y(2.0);
  {
    grpc::ClientContext ctx;
    v1::CreateConstraintRequest req;
    req.set_parent("worlds/s");
    *req.mutable_constraint() = c;
    v1::Constraint out;
    ASSERT_TRUE(scenes_->CreateConstraint(&ctx, req, &out).ok());
    EXPECT_EQ(out.name(), "worlds/s/constraints/pin");
  }
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 50, &frame).ok());
  for (const auto& b : frame.bodies()) {
    if (b.id() == "bob") {
      EXPECT_NEAR(b.pose().position().y(), 2.0, 1e-6);  // pinned
    }
  }
  {
    grpc::ClientContext ctx;
    v1::DeleteBodyRequest req;
    req.set_name("worlds/s/bodies/bob");
    v1::DeleteBodyResponse resp;
    ASSERT_TRUE(scenes_->DeleteBody(&ctx, req, &resp).ok());
  }
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  ASSERT_EQ(frame.removed_constraints_size(), 1);
  EXPECT_EQ(frame.removed_constraints(0), "worlds/s/constraints/pin");
  grpc::ClientContext ctx;
  v1::DeleteConstraintRequest req;
  req.set_name("worlds/s/constraints/pin");
  v1::DeleteConstraintResponse resp;
  EXPECT_EQ(scenes_->DeleteConstraint(&ctx, req, &resp).error_code(), grpc::NOT_FOUND);
}

// A door on a vertical hinge with a motor: UpdateConstraint retargets and swaps its drive,
// refuses paths of another kind and bad values by name, and a break force set below the
// door's weight breaks the hinge in the next tick, reported in the frame.
TEST_F(SceneServiceTest, JointDrivesUpdateAndJointsBreak) {
  v1::Body door;
  door.set_id("door");
  door.mutable_shape()->mutable_box()->mutable_half_extents()->set_x(0.4);
  door.mutable_shape()->mutable_box()->mutable_half_extents()->set_y(1.0);
  door.mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.02);
  door.mutable_pose()->mutable_position()->set_y(5.0);
  v1::Body created;
  ASSERT_TRUE(AddBody(door, &created).ok());
  v1::Constraint hinge;
  hinge.set_id("hinge");
  v1::JointFrames* frames = hinge.mutable_hinge()->mutable_frames();
  frames->set_body_a("door");
  // The axis (frame X) along world Y, at the door's edge.
  for (v1::Pose* pose : {frames->mutable_frame_a(), frames->mutable_frame_b()}) {
    pose->mutable_orientation()->set_z(std::sqrt(0.5));
    pose->mutable_orientation()->set_w(std::sqrt(0.5));
  }
  frames->mutable_frame_a()->mutable_position()->set_x(-0.4);
  frames->mutable_frame_b()->mutable_position()->set_x(-0.4);
  frames->mutable_frame_b()->mutable_position()->set_y(5.0);
  v1::JointDrive* motor = hinge.mutable_hinge()->mutable_drive();
  motor->set_mode(v1::DRIVE_MODE_VELOCITY);
  motor->set_target_velocity(1.0);
  motor->set_max_force(100.0);
  {
    grpc::ClientContext ctx;
    v1::CreateConstraintRequest req;
    req.set_parent("worlds/s");
    *req.mutable_constraint() = hinge;
    v1::Constraint out;
    ASSERT_TRUE(scenes_->CreateConstraint(&ctx, req, &out).ok());
  }
  auto spin = [&]() {
    v1::Frame frame;
    EXPECT_TRUE(Step("worlds/s", 100, &frame).ok());
    for (const auto& b : frame.bodies()) {
      if (b.id() == "door") return b.angular_velocity().y();
    }
    return 0.0;
  };
  // The angle is the world's about the door's axis: the door turns the other way. (At most
  // 100 N m on the door's 13.7 kg m^2 about its edge: 3 rad/s more takes 0.41 s.)
  EXPECT_NEAR(spin(), -1.0, 0.01);
  auto update = [&](const v1::Constraint& changes, const std::string& path, v1::Constraint* out) {
    grpc::ClientContext ctx;
    v1::UpdateConstraintRequest req;
    *req.mutable_constraint() = changes;
    req.mutable_constraint()->set_name("worlds/s/constraints/hinge");
    req.mutable_update_mask()->add_paths(path);
    return scenes_->UpdateConstraint(&ctx, req, out);
  };
  v1::Constraint changes;
  changes.mutable_hinge()->mutable_drive()->set_target_velocity(-2.0);
  v1::Constraint out;
  ASSERT_TRUE(update(changes, "hinge.drive.target_velocity", &out).ok());
  EXPECT_EQ(out.name(), "worlds/s/constraints/hinge");
  EXPECT_EQ(out.hinge().drive().target_velocity(), -2.0);
  EXPECT_EQ(out.hinge().drive().max_force(), 100.0);
  EXPECT_NEAR(spin(), 2.0, 0.02);

  grpc::Status wrong = update(changes, "slider.drive", &out);
  EXPECT_EQ(wrong.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(wrong.error_message().rfind("update_mask.paths[0]:", 0), 0u) << wrong.error_message();
  changes.mutable_hinge()->mutable_drive()->set_max_force(-1.0);
  grpc::Status bad = update(changes, "hinge.drive", &out);
  EXPECT_EQ(bad.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(bad.error_message().rfind("constraint.hinge.drive.mode:", 0), 0u)
      << bad.error_message();

  changes.set_break_force(1.0);  // far below the door's weight
  ASSERT_TRUE(update(changes, "break_force", &out).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  ASSERT_EQ(frame.broken_joints_size(), 1);
  EXPECT_EQ(frame.broken_joints(0).constraint(), "worlds/s/constraints/hinge");
  EXPECT_GT(frame.broken_joints(0).force(), 1.0);
  ASSERT_EQ(frame.removed_constraints_size(), 1);
  EXPECT_EQ(update(changes, "break_force", &out).error_code(), grpc::NOT_FOUND);
}

TEST_F(SceneServiceTest, BatchEditIsAllOrNothing) {
  const v1::Scene before = Export("worlds/s");
  v1::BatchEditRequest req;
  req.set_parent("worlds/s");
  *req.add_edits()->mutable_create_body() = Ball("one", 2.0);
  *req.add_edits()->mutable_create_body() = Ball("two", 3.0);
  req.add_edits()->set_delete_body("worlds/s/bodies/missing");  // fails
  {
    grpc::ClientContext ctx;
    v1::BatchEditResponse resp;
    const grpc::Status s = scenes_->BatchEdit(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::NOT_FOUND);
    EXPECT_NE(s.error_message().find("edits[2]"), std::string::npos) << s.error_message();
  }
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, Export("worlds/s")));

  req.mutable_edits()->RemoveLast();
  grpc::ClientContext ctx;
  v1::BatchEditResponse resp;
  ASSERT_TRUE(scenes_->BatchEdit(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.created_size(), 2);
  EXPECT_EQ(resp.created(1), "worlds/s/bodies/two");
  EXPECT_EQ(Export("worlds/s").bodies_size(), before.bodies_size() + 2);
}

TEST_F(SceneServiceTest, ExportRecreatesTheWorld) {
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 20, &frame).ok());
  const v1::Scene exported = Export("worlds/s");
  v1::World copy;
  ASSERT_TRUE(CreateWorld("copy", exported, &copy).ok());
  EXPECT_EQ(copy.body_count(), 2);
  const v1::Scene again = Export("worlds/copy");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(exported, again));
  // Both continue identically from the exported state.
  v1::Frame a, b;
  ASSERT_TRUE(Step("worlds/s", 10, &a).ok());
  ASSERT_TRUE(Step("worlds/copy", 10, &b).ok());
  EXPECT_DOUBLE_EQ(a.bodies(1).pose().position().y(), b.bodies(1).pose().position().y());
}

}  // namespace
}  // namespace ligature::testing
