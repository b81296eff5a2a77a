// StrandWorld constraints: a point held at a target (fixed, or riding on a body), a point
// kept on a curve, and a joint limit, each checked against the geometry after the steps;
// constraints go with their strand or their followed body, and bad ones are refused.
// The constraints are drift-corrected (eq. 15): an error decays by a fixed fraction per
// step, so a held point that has come to rest sits on its target (to 1e-6 m here, where a
// constraint that did not act would be off by centimetres).

#include <gtest/gtest.h>

#include <cmath>

#include "server/world/strand/strand_world.h"

namespace ligature {
namespace {

const Vec3 kGravity(0, -9.81, 0);
constexpr double kDt = 1.0 / 60.0;
constexpr int kSegments = 10;
constexpr double kLength = 0.25;
constexpr double kTolerance = 1e-6;  // m, once at rest

// A horizontal chain along x from the origin, soft enough to sag a lot under its weight.
StrandBodyDesc Chain(double rigidity) {
  StrandBodyDesc d;
  d.id = "s";
  for (int i = 0; i <= kSegments; ++i) d.strand.points.push_back(Vec3(kLength * i / kSegments, 0, 0));
  StrandMaterial m;
  m.mass_per_length = 0.02;
  m.radius = 0.002;
  m.bend_rigidity_x = m.bend_rigidity_z = m.twist_rigidity = rigidity;
  m.bend_damping_x = m.bend_damping_z = m.twist_damping = 1e-5;
  m.drag = 0.01;
  d.strand.materials = {m};
  return d;
}

// The tip of the last segment, in its frame.
const Vec3 kTip(0, kLength / kSegments, 0);

StrandConstraintDesc TipAt(const Vec3& target) {
  StrandConstraintDesc c;
  c.id = "tip";
  c.body = "s";
  c.segment = kSegments - 1;
  c.point = kTip;
  c.target = target;
  return c;
}

void StepFor(StrandWorld* world, int steps, const BodyPoseLookup& poses = nullptr,
         double* time = nullptr) {
  double t = time ? *time : 0.0;
  for (int k = 0; k < steps; ++k) {
    t += kDt;
    world->Step(t, kDt, kGravity, poses);
    ASSERT_EQ(world->last_stats().recovered, 0) << k;
  }
  if (time) *time = t;
}

TEST(StrandWorldConstraintsTest, PointHoldsTheTipAtItsTarget) {
  StrandWorld world;
  ASSERT_TRUE(world.AddStrand(Chain(1e-4), Transform{}, kGravity).ok());
  ASSERT_TRUE(world.AddConstraint(TipAt(Vec3(0.2, 0, 0))).ok());
  StepFor(&world, 180);
  const std::vector<Vec3>& p = world.FindStrand("s")->points;
  EXPECT_LT((p.back() - Vec3(0.2, 0, 0)).norm(), kTolerance);
  // The chain takes up its 5 cm of slack by bowing out of the line between its ends.
  EXPECT_GT(std::abs(p[kSegments / 2].y()), 0.02);
}

// The target lies on the straight chain's own line: the tip can hardly move towards the
// root until the chain bows, a pull that asks for forces without bound. At small steps this
// used to throw the joints off at thousands of rad/s, so every step was undone and the
// strand stayed frozen; damped, the chain bows and the tip comes to its target.
TEST(StrandWorldConstraintsTest, PointPulledAlongTheStraightChainAtSmallSteps) {
  for (const double h : {1e-3, 5e-4}) {
    StrandWorld world;
    ASSERT_TRUE(world.AddStrand(Chain(1e-4), Transform{}, kGravity).ok());
    ASSERT_TRUE(world.AddConstraint(TipAt(Vec3(0.2, 0, 0))).ok());
    double t = 0.0;
    for (int k = 0; k < static_cast<int>(2.0 / h); ++k) {
      t += h;
      world.Step(t, h, kGravity, nullptr);
      ASSERT_EQ(world.last_stats().recovered, 0) << h << " " << k;
    }
    const std::vector<Vec3>& p = world.FindStrand("s")->points;
    EXPECT_LT((p.back() - Vec3(0.2, 0, 0)).norm(), kTolerance) << h;
  }
}

TEST(StrandWorldConstraintsTest, PointTargetRidesOnItsBody) {
  StrandWorld world;
  ASSERT_TRUE(world.AddStrand(Chain(1e-4), Transform{}, kGravity).ok());
  StrandConstraintDesc c = TipAt(Vec3::Zero());
  c.follow_body = "hand";
  ASSERT_TRUE(world.AddConstraint(c).ok());
  Transform hand{Vec3(0.2, 0, 0), Quat::Identity()};
  auto poses = [&](const std::string& id) -> std::optional<FollowedBody> {
    if (id != "hand") return std::nullopt;
    return FollowedBody{hand, 0.0};
  };
  double t = 0.0;
  StepFor(&world, 60, poses, &t);
  // The hand moves down and in over a second; the tip comes along.
  for (int k = 1; k <= 60; ++k) {
    hand.position = Vec3(0.2 - 0.02 * k / 60.0, -0.03 * k / 60.0, 0);
    StepFor(&world, 1, poses, &t);
  }
  StepFor(&world, 60, poses, &t);
  EXPECT_LT((world.FindStrand("s")->points.back() - hand.position).norm(), kTolerance);
  // The hand goes away: its constraint goes with it and is reported.
  EXPECT_EQ(world.Unfollow("hand"), std::vector<std::string>{"tip"});
  EXPECT_FALSE(world.HasConstraint("tip"));
}

TEST(StrandWorldConstraintsTest, CurveKeepsThePointOnItWhileItSlides) {
  StrandWorld world;
  ASSERT_TRUE(world.AddStrand(Chain(1e-4), Transform{}, kGravity).ok());
  // A line along z through the tip's rest place, tilted down: the tip slides along it.
  StrandConstraintDesc c = TipAt(Vec3::Zero());
  c.kind = StrandConstraintKind::kCurve;
  c.curve = {Vec3(0.2, 0.1, -0.3), Vec3(0.2, -0.1, 0.3)};
  ASSERT_TRUE(world.AddConstraint(c).ok());
  StepFor(&world, 120);
  const Vec3 tip = world.FindStrand("s")->points.back();
  const Vec3 a = c.curve[0], dir = (c.curve[1] - c.curve[0]).normalized();
  const Vec3 off = (tip - a) - (tip - a).dot(dir) * dir;
  EXPECT_LT(off.norm(), kTolerance);
  // It slid down the line, away from where it started.
  EXPECT_GT(tip.z(), 0.02);
}

// The bend of segment i's joint away from its rest joint.
double Bend(const StrandWorld::Strand& s, int i) {
  const Quat d = s.sim.model().segment(i).rest.conjugate() * s.sim.state().q[i];
  return 2.0 * std::acos(std::min(1.0, std::abs(d.w())));
}

TEST(StrandWorldConstraintsTest, JointLimitCapsTheBend) {
  // The root joint of a limp chain bends far under its weight; limited, it stops at
  // max_bend (within the margin the limit starts acting in).
  StrandWorld free, limited;
  ASSERT_TRUE(free.AddStrand(Chain(1e-5), Transform{}, kGravity).ok());
  ASSERT_TRUE(limited.AddStrand(Chain(1e-5), Transform{}, kGravity).ok());
  StrandConstraintDesc c;
  c.id = "limit";
  c.body = "s";
  c.segment = 0;
  c.kind = StrandConstraintKind::kJointLimit;
  c.max_bend = 0.3;
  ASSERT_TRUE(limited.AddConstraint(c).ok());
  double worst = 0.0;
  for (int k = 0; k < 120; ++k) {
    StepFor(&free, 1);
    StepFor(&limited, 1);
    worst = std::max(worst, Bend(*limited.FindStrand("s"), 0));
  }
  EXPECT_GT(Bend(*free.FindStrand("s"), 0), 0.6);
  EXPECT_LT(worst, 0.3 + 0.01);
}

TEST(StrandWorldConstraintsTest, BadConstraintsAreRefusedAndTheyGoWithTheirStrand) {
  StrandWorld world;
  StrandConstraintDesc c = TipAt(Vec3::Zero());
  EXPECT_EQ(world.AddConstraint(c).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(world.AddStrand(Chain(1e-4), Transform{}, kGravity).ok());
  c.segment = kSegments;
  const absl::Status s = world.AddConstraint(c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("segment"), std::string::npos) << s;
  EXPECT_EQ(world.constraint_count(), 0);
  ASSERT_TRUE(world.AddConstraint(TipAt(Vec3(0.2, 0, 0))).ok());
  EXPECT_EQ(world.constraint_count(), 1);
  EXPECT_EQ(world.RemoveConstraint("nope").code(), absl::StatusCode::kNotFound);
  std::vector<std::string> removed;
  ASSERT_TRUE(world.RemoveStrand("s", &removed));
  EXPECT_EQ(removed, std::vector<std::string>{"tip"});
  EXPECT_FALSE(world.HasConstraint("tip"));
}

}  // namespace
}  // namespace ligature
