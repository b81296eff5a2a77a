// Strands in a world: a stiff cantilever strand following a kinematic body settles to the
// discrete static deflection (the model-level answer), in that body's frame, both where it
// starts and after a device has carried the body elsewhere; a soft strand draped on a
// static sphere rests on it without passing through; the built-in hair scene settles on the
// head and shoulders without a failed step; a strand's tip held by a constraint on a
// device-driven body goes where the body goes, is exported, and goes when the body does.

#include <gtest/gtest.h>

#include <cmath>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "tests/validation/strand_answers.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

BodyDesc StrandBody(const std::string& id, int n, double length, const Vec3& dir,
                    const StrandMaterial& material) {
  BodyDesc b;
  b.id = id;
  StrandBodyDesc s;
  for (int i = 0; i <= n; ++i) s.strand.points.push_back(dir.normalized() * (length * i / n));
  s.strand.materials = {material};
  b.body = s;
  return b;
}

const BodyState* Find(const Frame& f, const std::string& id) {
  for (const BodyState& b : f.bodies) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

// The cantilever of the model-level test (10 segments, 0.5 m, joint stiffness 0.3 N m/rad)
// held sideways by a kinematic body that is turned about the vertical and raised, at 1 kHz.
TEST(StrandWorld, CantileverOnAFollowedBodyMatchesTheStaticDeflection) {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.radius = 0.003;
  mat.bend_rigidity_x = mat.bend_rigidity_z = 0.15;
  mat.twist_rigidity = 0.1;
  mat.bend_damping_x = mat.bend_damping_z = 4e-3;
  mat.twist_damping = 1e-3;
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  const Transform start{Vec3(0.3, 1.2, -0.2), Quat(Eigen::AngleAxisd(0.7, Vec3::UnitY()))};
  BodyDesc hand = testing::MakeBody("hand", Shape::Sphere(0.02), start.position,
                                    BodyKind::kKinematic);
  hand.rigid()->pose.orientation = start.orientation;
  scene.bodies.push_back(hand);
  BodyDesc strand = StrandBody("beam", 10, 0.5, Vec3::UnitX(), mat);
  strand.strand()->follow_body = "hand";
  strand.strand()->pose.position = Vec3(0.03, 0, 0);  // the root just outside the hand
  scene.bodies.push_back(strand);
  auto world = testing::MakeWorld(scene);
  const double expected = testing::CantileverTipDrop(10, 0.5, 0.05, 0.15 / 0.05);
  ASSERT_GT(expected, 0.01);

  // The tip in the hand's frame, relative to the root.
  auto tip_in_hand = [&](const Transform& hand_pose) -> Vec3 {
    const Frame f = world->MakeFrame();
    const BodyState* b = Find(f, "beam");
    return hand_pose.InverseApply(b->strand_points.back()) - Vec3(0.03, 0, 0);
  };
  for (int k = 0; k < 3000; ++k) world->Step();
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
  Vec3 tip = tip_in_hand(start);
  EXPECT_NEAR(-tip.y(), expected, 0.01 * expected);
  EXPECT_NEAR(tip.z(), 0.0, 1e-5);

  // A device carries the hand 0.4 m up and turns it a further 1 rad over 0.5 s.
  Transform target = start;
  for (int k = 1; k <= 500; ++k) {
    const double s = k / 500.0;
    target.position = start.position + Vec3(0, 0.4 * s, 0);
    target.orientation = Quat(Eigen::AngleAxisd(0.7 + s, Vec3::UnitY()));
    ASSERT_TRUE(world->SetDeviceTarget("hand", target).ok());
    world->Step();
  }
  for (int k = 0; k < 3000; ++k) world->Step();
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
  tip = tip_in_hand(target);
  EXPECT_NEAR(-tip.y(), expected, 0.01 * expected);
  EXPECT_NEAR(tip.z(), 0.0, 1e-5);
}

// A soft strand rooted on top of a static sphere and sticking out sideways falls and drapes
// over it at 240 Hz: no collision point (segment midpoints and tips) ever sinks more than a
// millimetre into the sphere, the tip ends below the sphere's top, and it comes to rest.
TEST(StrandWorld, StrandDrapedOnAStaticSphereRestsOnIt) {
  const StrandMaterial mat = testing::SoftHairMaterial();
  SceneDesc scene;
  scene.settings.rate_hz = 240.0;
  const Vec3 centre(0, 1, 0);
  const double radius = 0.1;
  scene.bodies.push_back(
      testing::MakeBody("ball", Shape::Sphere(radius), centre, BodyKind::kStatic));
  BodyDesc strand = StrandBody("hair", 12, 0.3, Vec3::UnitX(), mat);
  strand.strand()->pose.position = centre + Vec3(0, radius + mat.radius + 1e-4, 0);
  scene.bodies.push_back(strand);
  auto world = testing::MakeWorld(scene);
  double worst = 0.0;
  std::vector<Vec3> last;
  for (int k = 0; k < 1200; ++k) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << k;
    const Frame f = world->MakeFrame();
    const std::vector<Vec3>& p = Find(f, "hair")->strand_points;
    for (size_t i = 1; i < p.size(); ++i) {
      for (const Vec3& q : {p[i], Vec3(0.5 * (p[i - 1] + p[i]))}) {
        worst = std::max(worst, radius + mat.radius - (q - centre).norm());
      }
    }
    last = p;
  }
  EXPECT_LT(worst, 1e-3);
  EXPECT_LT(last.back().y(), centre.y());
  // At rest: the last step moved no point by more than 10 um.
  world->Step();
  const Frame f = world->MakeFrame();
  const std::vector<Vec3>& now = Find(f, "hair")->strand_points;
  double moved = 0.0;
  for (size_t i = 0; i < now.size(); ++i) moved = std::max(moved, (now[i] - last[i]).norm());
  EXPECT_LT(moved, 1e-5);
}

// The built-in hair scene: 36 strands fall from sticking out onto the head and the
// shoulders; after 3 s every strand has settled on them (none inside either by more than a
// millimetre, none failed a step), and most tips hang below the head's centre.
TEST(StrandWorld, HairSceneSettlesOnHeadAndShoulders) {
  auto proto = LoadBuiltinScene("hair");
  ASSERT_TRUE(proto.ok()) << proto.status();
  auto scene = SceneFromProto(*proto);
  ASSERT_TRUE(scene.ok()) << scene.status();
  auto world = testing::MakeWorld(*scene);
  const Vec3 head = testing::PositionOf(*world, "head");
  const BodyDesc shoulders = *world->GetBody("shoulders");
  const double hair_radius = 0.002;
  auto capsule_gap = [&](const Vec3& p) {
    const Vec3 local = shoulders.rigid()->pose.InverseApply(p);
    const double y = std::clamp(local.y(), -shoulders.rigid()->shape.half_length,
                                shoulders.rigid()->shape.half_length);
    return (local - Vec3(0, y, 0)).norm() - shoulders.rigid()->shape.radius - hair_radius;
  };
  double worst = 0.0;
  const int steps = static_cast<int>(3.0 * scene->settings.rate_hz);
  for (int k = 0; k < steps; ++k) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << k;
  }
  const Frame f = world->MakeFrame();
  int strands = 0, below = 0;
  for (const BodyState& b : f.bodies) {
    if (b.strand_points.empty()) continue;
    ++strands;
    for (const Vec3& p : b.strand_points) {
      worst = std::max(worst, 0.1 + hair_radius - (p - head).norm());
      worst = std::max(worst, -capsule_gap(p));
    }
    if (b.strand_points.back().y() < head.y()) ++below;
  }
  EXPECT_EQ(strands, 36);
  EXPECT_LT(worst, 1e-3);
  EXPECT_GT(below, 24);
}

TEST(StrandWorld, TipConstraintOnADeviceBodyFollowsExportsAndGoesWithIt) {
  StrandMaterial mat;
  mat.mass_per_length = 0.02;
  mat.radius = 0.002;
  mat.bend_rigidity_x = mat.bend_rigidity_z = mat.twist_rigidity = 1e-4;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 1e-5;
  mat.drag = 0.01;
  SceneDesc scene;
  scene.bodies.push_back(StrandBody("rope", 10, 0.25, Vec3::UnitX(), mat));
  scene.bodies.push_back(testing::MakeBody("hand", Shape::Sphere(0.01), Vec3(0.18, 0, 0),
                                           BodyKind::kKinematic));
  ConstraintDesc tip;
  tip.id = "tip";
  tip.strand = StrandConstraintDesc{};
  tip.strand->body = "rope";
  tip.strand->segment = 9;
  tip.strand->point = Vec3(0, 0.025, 0);
  tip.strand->follow_body = "hand";
  tip.strand->target = Vec3(0.02, 0, 0);  // beside the hand's sphere, which the rope meets
  scene.constraints.push_back(tip);
  auto world = testing::MakeWorld(scene);
  ASSERT_EQ(world->constraint_count(), 1);
  // The device lowers the hand by 3 cm over a second, then holds it.
  for (int k = 1; k <= 120; ++k) {
    const Vec3 hand(0.18, -0.03 * std::min(1.0, k / 60.0), 0);
    ASSERT_TRUE(world->SetDeviceTarget("hand", Transform{hand, Quat::Identity()}).ok());
    world->Step();
  }
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
  const Frame frame = world->MakeFrame();
  const BodyState* rope = Find(frame, "rope");
  ASSERT_NE(rope, nullptr);
  EXPECT_LT((rope->strand_points.back() - Vec3(0.2, -0.03, 0)).norm(), 0.005);
  // Exported with the scene.
  const SceneDesc exported = world->Export();
  ASSERT_EQ(exported.constraints.size(), 1u);
  ASSERT_TRUE(exported.constraints[0].strand.has_value());
  EXPECT_EQ(exported.constraints[0].strand->follow_body, "hand");
  // The hand is deleted: the constraint goes with it and the next frame says so.
  ASSERT_TRUE(world->RemoveBody("hand").ok());
  world->Step();
  EXPECT_EQ(world->constraint_count(), 0);
  EXPECT_EQ(world->MakeFrame().removed_constraints, std::vector<std::string>{"tip"});
}

}  // namespace
}  // namespace ligature
