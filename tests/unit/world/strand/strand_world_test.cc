// StrandWorld: strands are validated and nothing is half-added; points and their parents
// come out for chains and trees; bases follow bodies, and local dynamics 1 carries a strand
// rigidly with its base while 0 lets it lag; rigid shapes map onto strand obstacles with
// the motion of their material points; a failed step is undone and counted; strands that
// followed a deleted body stay where they were; a step shared over threads gives the same
// bits as one on the caller alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "server/world/strand/strand_world.h"

namespace ligature {
namespace {

const Vec3 kGravity(0, -9.81, 0);

StrandBodyDesc Chain(const std::string& id, int n, double length, const Vec3& dir) {
  StrandBodyDesc d;
  d.id = id;
  for (int i = 0; i <= n; ++i) d.strand.points.push_back(dir.normalized() * (length * i / n));
  StrandMaterial m;
  m.mass_per_length = 0.02;
  m.radius = 0.002;
  m.bend_rigidity_x = m.bend_rigidity_z = 1e-3;
  m.twist_rigidity = 1e-3;
  m.bend_damping_x = m.bend_damping_z = m.twist_damping = 1e-4;
  d.strand.materials = {m};
  return d;
}

TEST(StrandWorldTest, RejectsBadStrandsAndAddsNothing) {
  StrandWorld world;
  StrandBodyDesc bad = Chain("a", 4, 0.1, Vec3::UnitX());
  bad.strand.points[2] = bad.strand.points[1];  // a zero-length segment
  absl::Status s = world.AddStrand(bad, Transform{}, kGravity);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("points[2]"), std::string::npos) << s;
  bad = Chain("a", 4, 0.1, Vec3::UnitX());
  bad.local_dynamics = 1.5;
  EXPECT_EQ(world.AddStrand(bad, Transform{}, kGravity).code(),
            absl::StatusCode::kInvalidArgument);
  bad = Chain("a", 4, 0.1, Vec3::UnitX());
  bad.restitution = -0.1;
  EXPECT_EQ(world.AddStrand(bad, Transform{}, kGravity).code(),
            absl::StatusCode::kInvalidArgument);
  // Springs too weak to hold a sideways strand in its rest curve.
  bad = Chain("a", 4, 0.1, Vec3::UnitX());
  bad.strand.materials[0].bend_rigidity_x = bad.strand.materials[0].bend_rigidity_z = 0.0;
  bad.zero_gravity_rest_shape = true;
  EXPECT_EQ(world.AddStrand(bad, Transform{}, kGravity).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(world.empty());

  ASSERT_TRUE(world.AddStrand(Chain("a", 4, 0.1, Vec3::UnitX()), Transform{}, kGravity).ok());
  EXPECT_EQ(world.AddStrand(Chain("a", 4, 0.1, Vec3::UnitX()), Transform{}, kGravity).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(world.HasStrand("a"));
  std::vector<std::string> removed;
  EXPECT_TRUE(world.RemoveStrand("a", &removed));
  EXPECT_FALSE(world.RemoveStrand("a", &removed));
  EXPECT_TRUE(world.empty());
}

// Points are the base point and every tip, placed by the base pose; a tree reports each
// point's parent point.
TEST(StrandWorldTest, PointsAndParentsOfChainsAndTrees) {
  StrandWorld world;
  const Transform base{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(0.5, Vec3::UnitY()))};
  StrandBodyDesc chain = Chain("c", 3, 0.3, Vec3::UnitX());
  ASSERT_TRUE(world.AddStrand(chain, base, kGravity).ok());
  const StrandWorld::Strand* c = world.FindStrand("c");
  ASSERT_EQ(c->points.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT((c->points[i] - base.Apply(chain.strand.points[i])).norm(), 1e-12) << i;
  }
  EXPECT_TRUE(c->point_parents.empty());

  // A fork: segment 0 from the base, segments 1 and 2 both from segment 0's tip.
  StrandBodyDesc tree = Chain("t", 1, 0.1, -Vec3::UnitY());
  tree.strand.points.push_back(Vec3(0.05, -0.2, 0));
  tree.strand.points.push_back(Vec3(-0.05, -0.2, 0));
  tree.strand.parents = {-1, 0, 0};
  ASSERT_TRUE(world.AddStrand(tree, Transform{}, kGravity).ok());
  EXPECT_EQ(world.FindStrand("t")->point_parents, (std::vector<int>{-1, 0, 1, 1}));
}

// With local dynamics 1 and no body of its own, the strand does not feel its base's
// motion: without gravity it is carried rigidly in its rest shape. With 0 it lags.
TEST(StrandWorldTest, LocalDynamicsOneCarriesTheStrandRigidly) {
  auto run = [](double local_dynamics) {
    StrandWorld world;
    StrandBodyDesc d = Chain("s", 6, 0.3, Vec3::UnitX());
    d.follow_body = "hand";
    d.local_dynamics = local_dynamics;
    EXPECT_TRUE(world.AddStrand(d, Transform{}, Vec3::Zero()).ok());
    const double h = 1.0 / 120.0;
    Transform hand;
    for (int k = 1; k <= 60; ++k) {
      // Accelerating up and turning.
      hand.position = Vec3(0, 0.5 * 3.0 * std::pow(k * h, 2), 0);
      hand.orientation = Quat(Eigen::AngleAxisd(1.0 * std::pow(k * h, 2), Vec3::UnitY()));
      world.Step(k * h, h, Vec3::Zero(), [&](const std::string& id) -> std::optional<FollowedBody> {
        if (id != "hand") return std::nullopt;
        return FollowedBody{hand, 0.0};
      });
    }
    EXPECT_EQ(world.last_stats().recovered, 0);
    const StrandWorld::Strand* s = world.FindStrand("s");
    double off = 0.0;
    for (size_t i = 0; i < s->points.size(); ++i) {
      off = std::max(off, (s->points[i] - hand.Apply(d.strand.points[i])).norm());
    }
    return off;
  };
  EXPECT_LT(run(1.0), 1e-9);
  EXPECT_GT(run(0.0), 1e-3);
}

// A world shape becomes a strand's obstacle with the same shape, placed alike, its origin
// moving with its body's rigid motion, with the strand's friction and restitution.
TEST(StrandWorldTest, ObstaclesMapShapesAndMotion) {
  Obstacle o;
  o.shape = Shape::Capsule(0.1, 0.3);
  o.pose = Transform{Vec3(1, 0, 0), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()))};
  ObstacleMotion m{Vec3(0, 0, 0), Vec3(0.5, 0, 0), Vec3(0, 0, 2)};
  Obstacle s = StrandObstacleOf(o, m, 0.4, 0.2);
  EXPECT_EQ(s.shape.type, ShapeType::kCapsule);
  EXPECT_EQ(s.shape.radius, 0.1);
  EXPECT_EQ(s.shape.half_length, 0.3);
  EXPECT_EQ(s.friction, 0.4);
  EXPECT_EQ(s.restitution, 0.2);
  EXPECT_LT((s.linear_velocity - Vec3(0.5, 2.0, 0)).norm(), 1e-12);  // v + w x (1, 0, 0)
  // The capsule's axis turned onto -x: a point 0.35 m beyond the origin along it is 0.05 m
  // beyond the cap's surface... along x, and inside it 0.05 m along y.
  EXPECT_NEAR(Distance(s, Vec3(1.0 - 0.45, 0, 0)).distance, 0.05, 1e-12);
  EXPECT_NEAR(Distance(s, Vec3(1.0, 0.05, 0)).distance, -0.05, 1e-12);

  o.shape = Shape::Box(Vec3(0.1, 0.2, 0.3));
  o.pose = Transform{};
  s = StrandObstacleOf(o, ObstacleMotion{}, 0.3, 0.0);
  EXPECT_NEAR(Distance(s, Vec3(0, 0, 0.5)).distance, 0.2, 1e-12);
  o.shape = Shape::Plane();
  s = StrandObstacleOf(o, ObstacleMotion{}, 0.3, 0.0);
  EXPECT_NEAR(Distance(s, Vec3(3, -0.25, 1)).distance, -0.25, 1e-12);
  o.shape = Shape::Sphere(0.5);
  s = StrandObstacleOf(o, ObstacleMotion{}, 0.3, 0.0);
  EXPECT_NEAR(Distance(s, Vec3(0, 0.75, 0)).distance, 0.25, 1e-12);
}

// A step that fails (here a followed body whose pose is not finite) is undone: the
// strand keeps its shape at rest, the failure is counted, and nothing non-finite is left.
TEST(StrandWorldTest, FailedStepIsUndoneAndCounted) {
  StrandWorld world;
  StrandBodyDesc d = Chain("s", 5, 0.2, Vec3::UnitX());
  d.follow_body = "hand";
  ASSERT_TRUE(world.AddStrand(d, Transform{}, kGravity).ok());
  Transform hand;
  auto poses = [&](const std::string&) -> std::optional<FollowedBody> {
    return FollowedBody{hand, 0.0};
  };
  const double h = 1.0 / 120.0;
  for (int k = 1; k <= 10; ++k) world.Step(k * h, h, kGravity, poses);
  const std::vector<Vec3> before = world.FindStrand("s")->points;
  hand.position.x() = std::nan("");
  world.Step(11 * h, h, kGravity, poses);
  EXPECT_EQ(world.last_stats().recovered, 1);
  const StrandWorld::Strand* s = world.FindStrand("s");
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(s->points[i], before[i]) << i;
  for (const Vec3& w : s->sim.state().w) EXPECT_EQ(w, Vec3::Zero());
  // Back to a finite pose, it moves on.
  hand.position.x() = 0.0;
  world.Step(12 * h, h, kGravity, poses);
  EXPECT_EQ(world.last_stats().recovered, 0);
  for (const Vec3& p : world.FindStrand("s")->points) EXPECT_TRUE(p.allFinite());
}

// Unfollowing (the followed body is deleted) holds the base where it last was, and the
// description says so (an export re-creates it there).
TEST(StrandWorldTest, UnfollowHoldsTheBaseWhereItWas) {
  StrandWorld world;
  StrandBodyDesc d = Chain("s", 3, 0.1, -Vec3::UnitY());
  d.follow_body = "head";
  d.pose.position = Vec3(0, 0.1, 0);
  const Transform head{Vec3(0, 1.5, 0), Quat::Identity()};
  ASSERT_TRUE(world.AddStrand(d, head * d.pose, kGravity).ok());
  auto poses = [&](const std::string& id) -> std::optional<FollowedBody> {
    if (id != "head") return std::nullopt;
    return FollowedBody{head, 0.0};
  };
  world.Step(1.0 / 60.0, 1.0 / 60.0, kGravity, poses);
  EXPECT_TRUE(world.References("head"));
  world.Unfollow("head");
  EXPECT_FALSE(world.References("head"));
  const StrandWorld::Strand* s = world.FindStrand("s");
  EXPECT_TRUE(s->desc.follow_body.empty());
  EXPECT_LT((s->desc.pose.position - Vec3(0, 1.6, 0)).norm(), 1e-12);
  world.Step(2.0 / 60.0, 1.0 / 60.0, kGravity, nullptr);
  EXPECT_LT((world.FindStrand("s")->points[0] - Vec3(0, 1.6, 0)).norm(), 1e-12);
}

// Strands meet the obstacles they are given: a strand hanging onto a static box top lies
// on it and does not sink in.
TEST(StrandWorldTest, StrandsRestOnObstacles) {
  StrandWorld world;
  StrandBodyDesc d = Chain("s", 10, 0.25, Vec3::UnitX());
  d.pose.position = Vec3(0, 0.05 + 0.002 + 1e-4, 0);
  ASSERT_TRUE(world.AddStrand(d, d.pose, kGravity).ok());
  Obstacle box;
  box.shape = Shape::Box(Vec3(0.5, 0.05, 0.5));
  box.bounds = {Vec3(-0.5, -0.05, -0.5), Vec3(0.5, 0.05, 0.5)};
  const std::vector<Obstacle> obstacles = {box};
  const double h = 1.0 / 240.0;
  for (int k = 1; k <= 480; ++k) world.Step(k * h, h, kGravity, nullptr, obstacles);
  EXPECT_EQ(world.last_stats().recovered, 0);
  EXPECT_GT(world.last_stats().contacts, 0);
  for (const Vec3& p : world.FindStrand("s")->points) {
    EXPECT_GT(p.y(), 0.05 + 0.002 - 1e-3);
    EXPECT_LT(p.y(), 0.05 + 0.002 + 2e-3);
  }
}

// Strands on a moving head, some draped over a sphere, stepped on one thread and on two:
// every joint rotation and velocity, every point and the stats agree to the bit.
TEST(StrandWorldTest, ThreadedStepMatchesSingleThreadedBitForBit) {
  StrandWorld single, threaded;
  single.set_threads(1);
  threaded.set_threads(2);
  for (int k = 0; k < 12; ++k) {
    const double a = 0.5 * k;
    // Rooted near the crown, sticking out sideways, soft: they droop onto the head.
    StrandBodyDesc d = Chain(absl::StrCat("s", k), 6 + k % 5, 0.2,
                             Vec3(std::cos(a), 0, std::sin(a)));
    StrandMaterial& m = d.strand.materials[0];
    m.bend_rigidity_x = m.bend_rigidity_z = 1e-5;
    d.follow_body = "head";
    d.pose.position = 0.105 * Vec3(0.3 * std::cos(a), 1, 0.3 * std::sin(a)).normalized();
    for (StrandWorld* w : {&single, &threaded}) ASSERT_TRUE(w->AddStrand(d, d.pose, kGravity).ok());
  }
  Obstacle head;
  head.shape = Shape::Sphere(0.1);
  const double h = 1.0 / 120.0;
  int contacts = 0;
  for (int k = 1; k <= 60; ++k) {
    // The head sways along x; the obstacle moves with it.
    const Vec3 at(0.05 * std::sin(6.0 * k * h), 0, 0);
    head.pose.position = at;
    head.bounds = {at - Vec3::Constant(0.1), at + Vec3::Constant(0.1)};
    const std::vector<Obstacle> obstacles = {head};
    const BodyPoseLookup poses = [&](const std::string&) -> std::optional<FollowedBody> {
      return FollowedBody{Transform{at, Quat::Identity()}, 0.0};
    };
    single.Step(k * h, h, kGravity, poses, obstacles);
    threaded.Step(k * h, h, kGravity, poses, obstacles);
    EXPECT_EQ(single.last_stats().contacts, threaded.last_stats().contacts) << k;
    EXPECT_EQ(single.last_stats().newton_iterations, threaded.last_stats().newton_iterations);
    EXPECT_EQ(single.last_stats().recovered, threaded.last_stats().recovered);
    contacts = std::max(contacts, single.last_stats().contacts);
  }
  EXPECT_GT(contacts, 0);
  for (size_t i = 0; i < single.strands().size(); ++i) {
    const StrandWorld::Strand& a = single.strands()[i];
    const StrandWorld::Strand& b = threaded.strands()[i];
    ASSERT_EQ(a.sim.state().q.size(), b.sim.state().q.size());
    for (size_t j = 0; j < a.sim.state().q.size(); ++j) {
      EXPECT_EQ(a.sim.state().q[j].coeffs(), b.sim.state().q[j].coeffs()) << i << " " << j;
      EXPECT_EQ(a.sim.state().w[j], b.sim.state().w[j]) << i << " " << j;
    }
    ASSERT_EQ(a.points.size(), b.points.size());
    for (size_t j = 0; j < a.points.size(); ++j) EXPECT_EQ(a.points[j], b.points[j]);
  }
}

// A single limp segment in a uniform wind hangs where the drag on its centre and its weight
// balance about the joint: tan(angle from the vertical) = drag * wind / (m g).
TEST(StrandWorldTest, WindTiltsALimpSegmentToTheDragWeightBalance) {
  StrandWorld world;
  StrandBodyDesc d = Chain("w", 1, 0.2, -Vec3::UnitY());
  StrandMaterial& m = d.strand.materials[0];
  m.bend_rigidity_x = m.bend_rigidity_z = 0.0;
  m.drag = 0.1;  // N s / m^2: 0.02 N s / m on the segment
  d.wind = Vec3(2.0, 0, 0);
  ASSERT_TRUE(world.AddStrand(d, Transform{}, kGravity).ok());
  const double h = 1.0 / 240.0;
  for (int k = 1; k <= 1200; ++k) world.Step(k * h, h, kGravity, nullptr);
  const Vec3 tip = world.FindStrand("w")->points[1];
  const double expected = std::atan2(0.1 * 0.2 * 2.0, 0.02 * 0.2 * 9.81);
  EXPECT_NEAR(std::atan2(tip.x(), -tip.y()), expected, 1e-4);
  EXPECT_NEAR(tip.z(), 0.0, 1e-9);

  StrandBodyDesc bad = Chain("b", 1, 0.2, -Vec3::UnitY());
  bad.wind = Vec3(std::nan(""), 0, 0);
  EXPECT_EQ(world.AddStrand(bad, Transform{}, kGravity).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ligature
