// Strands over real gRPC: a strand created as a body following a kinematic head, stepped
// and watched in frames (its points), carried by the head; bad strand input gets
// INVALID_ARGUMENT naming the field (or NOT_FOUND for an unknown followed body) and
// changes nothing; an exported scene re-creates the strands, which then move exactly as
// the originals.

#include <chrono>
#include <cmath>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Body Head() {
  v1::Body head;
  head.set_id("head");
  head.set_kind(v1::BODY_KIND_KINEMATIC);
  head.mutable_shape()->mutable_sphere()->set_radius(0.1);
  head.mutable_pose()->mutable_position()->set_y(1.5);
  return head;
}

// A strand of `n` 2.5 cm segments rooted just above the head's top (in the head's frame),
// sticking out along x.
v1::Body Hair(const std::string& id, int n) {
  v1::Body b;
  b.set_id(id);
  b.mutable_pose()->mutable_position()->set_y(0.1 + 0.002 + 1e-4);
  v1::Strand* s = b.mutable_strand();
  for (int i = 0; i <= n; ++i) s->add_points()->set_x(0.025 * i);
  v1::StrandMaterial* m = s->mutable_material();
  m->set_mass_per_length(0.02);
  m->set_radius(0.002);
  m->set_bend_stiffness_x(1e-4);
  m->set_bend_stiffness_y(1e-4);
  m->set_bend_damping(2e-5);
  m->set_twist_stiffness(1e-4);
  m->set_twist_damping(2e-5);
  m->set_air_drag(0.05);
  s->set_follow_body("head");
  return b;
}

class StrandServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("h", BallScene(), &w).ok());
    ASSERT_TRUE(AddBody(Head()).ok());
  }
  grpc::Status AddBody(const v1::Body& body) { return CreateBodyIn("worlds/h", body); }
  int BodyCount(const std::string& world) {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name(world);
    v1::World w;
    EXPECT_TRUE(worlds_->GetWorld(&ctx, req, &w).ok());
    return w.body_count();
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

TEST_F(StrandServiceTest, StrandFollowsTheHeadFallsAndShowsInFrames) {
  grpc::ClientContext ctx;
  v1::CreateBodyRequest req;
  req.set_parent("worlds/h");
  *req.mutable_body() = Hair("lock", 12);
  v1::Body created;
  ASSERT_TRUE(scenes_->CreateBody(&ctx, req, &created).ok());
  EXPECT_EQ(created.name(), "worlds/h/bodies/lock");
  EXPECT_EQ(created.strand().points_size(), 13);
  EXPECT_EQ(created.strand().follow_body(), "head");
  EXPECT_EQ(BodyCount("worlds/h"), 4);

  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/h", 120, &frame).ok());
  const v1::BodyState* lock = FindBody(frame, "lock");
  ASSERT_NE(lock, nullptr);
  ASSERT_EQ(lock->strand_points_size(), 13);
  EXPECT_EQ(lock->strand_parents_size(), 0);  // a single chain
  EXPECT_EQ(frame.solver().recovered_bodies(), 0);
  // The root is on the head; the strand has fallen onto it and over its side.
  EXPECT_NEAR(lock->strand_points(0).y(), 1.5 + 0.1021, 1e-9);
  EXPECT_LT(lock->strand_points(12).y(), 1.5);

  // A device-like motion: the head moves 0.3 m sideways at 1 m/s, and the root goes along.
  v1::UpdateBodyRequest up;
  up.mutable_body()->set_name("worlds/h/bodies/head");
  up.mutable_body()->mutable_linear_velocity()->set_z(1.0);
  up.mutable_update_mask()->add_paths("linear_velocity");
  {
    grpc::ClientContext c;
    v1::Body out;
    ASSERT_TRUE(scenes_->UpdateBody(&c, up, &out).ok());
  }
  ASSERT_TRUE(Step("worlds/h", 30, &frame).ok());
  lock = FindBody(frame, "lock");
  EXPECT_NEAR(lock->strand_points(0).z(), 0.3, 1e-9);
  for (const v1::Vec3& p : lock->strand_points()) {
    EXPECT_TRUE(std::isfinite(p.x()) && std::isfinite(p.y()) && std::isfinite(p.z()));
  }

  // Watchers see the strand's points as the world runs.
  ASSERT_TRUE(SetPaused("worlds/h", false).ok());
  grpc::ClientContext watch_ctx;
  watch_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  v1::WatchRequest watch;
  watch.set_world("worlds/h");
  watch.add_body_ids("lock");
  auto reader = sessions_->Watch(&watch_ctx, watch);
  int frames = 0;
  while (reader->Read(&frame)) {
    ++frames;
    ASSERT_EQ(frame.bodies_size(), 1);
    EXPECT_EQ(frame.bodies(0).strand_points_size(), 13);
  }
  EXPECT_GE(frames, 2);
}

TEST_F(StrandServiceTest, BadStrandInputNamesTheFieldAndChangesNothing) {
  auto expect = [](const grpc::Status& s, grpc::StatusCode code, const std::string& field) {
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_NE(s.error_message().find(field), std::string::npos) << s.error_message();
  };
  const int bodies = BodyCount("worlds/h");
  v1::Body bad = Hair("bad", 6);
  bad.mutable_strand()->mutable_points(3)->set_y(std::nan(""));
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.strand.points[3].y");
  bad = Hair("bad", 6);
  *bad.mutable_strand()->mutable_points(4) = bad.strand().points(3);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.strand.points[4]");
  bad = Hair("bad", 6);
  bad.mutable_strand()->add_parents(-1);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.strand.parents");
  bad = Hair("bad", 6);
  bad.mutable_strand()->mutable_material()->set_radius(-1.0);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.strand.material.radius");
  bad = Hair("bad", 6);
  bad.mutable_strand()->set_local_dynamics(1.5);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.strand.local_dynamics");
  bad = Hair("bad", 6);
  bad.mutable_strand()->set_follow_body("nobody");
  expect(AddBody(bad), grpc::NOT_FOUND, "follow_body");
  EXPECT_EQ(BodyCount("worlds/h"), bodies);

  // A strand moves by its own dynamics: updating it as a rigid body is refused.
  ASSERT_TRUE(AddBody(Hair("lock", 6)).ok());
  v1::UpdateBodyRequest up;
  up.mutable_body()->set_name("worlds/h/bodies/lock");
  up.mutable_body()->mutable_linear_velocity()->set_x(1.0);
  up.mutable_update_mask()->add_paths("linear_velocity");
  grpc::ClientContext ctx;
  v1::Body out;
  EXPECT_EQ(scenes_->UpdateBody(&ctx, up, &out).error_code(), grpc::FAILED_PRECONDITION);
}

// Export, re-create, and both worlds step the same: the strands come back whole (curve,
// tree, materials, art direction, base and follow_body).
TEST_F(StrandServiceTest, ExportRecreatesStrandsThatMoveTheSame) {
  ASSERT_TRUE(AddBody(Hair("lock", 12)).ok());
  v1::Body tuft = Hair("tuft", 1);
  v1::Strand* s = tuft.mutable_strand();
  // A fork: two segments from the first segment's tip.
  v1::Vec3* a = s->add_points();
  a->set_x(0.05);
  a->set_y(0.02);
  v1::Vec3* b = s->add_points();
  b->set_x(0.05);
  b->set_y(-0.02);
  for (int p : {-1, 0, 0}) s->add_parents(p);
  s->set_time_scale(0.8);
  s->set_pose_strength(0.5);
  tuft.mutable_pose()->mutable_position()->set_x(0.1021);
  tuft.mutable_pose()->mutable_position()->set_y(0.0);
  ASSERT_TRUE(AddBody(tuft).ok());
  const v1::Scene scene = Export("worlds/h");
  v1::World copy;
  ASSERT_TRUE(CreateWorld("copy", scene, &copy).ok());
  EXPECT_EQ(copy.body_count(), BodyCount("worlds/h"));
  const v1::Scene again = Export("worlds/copy");
  EXPECT_EQ(again.SerializeAsString(), scene.SerializeAsString());

  v1::Frame original, copied;
  ASSERT_TRUE(Step("worlds/h", 60, &original).ok());
  ASSERT_TRUE(Step("worlds/copy", 60, &copied).ok());
  for (const std::string id : {"lock", "tuft"}) {
    const v1::BodyState* x = FindBody(original, id);
    const v1::BodyState* y = FindBody(copied, id);
    ASSERT_NE(x, nullptr);
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(x->SerializeAsString(), y->SerializeAsString()) << id;
  }
  const v1::BodyState* t = FindBody(original, "tuft");
  EXPECT_EQ(t->strand_parents_size(), 4);
  EXPECT_EQ(t->strand_parents(3), 1);
}

}  // namespace
}  // namespace ligature::testing
