#include "server/constraint/constraint_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ligature {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// A ball joint whose frame positions encode its id, so a mixed-up entry shows.
Joint Point(const std::string& id, BodyHandle a, BodyHandle b = {}) {
  Joint c;
  c.id = id;
  c.params.kind = JointKind::kBall;
  c.body_a = a;
  c.body_b = b;
  c.frame_a.position = Vec3(id.size(), 0.0, 0.0);
  c.frame_b.position = Vec3(0.0, static_cast<double>(id.back()), 0.0);
  return c;
}

// Every stored constraint is found under its own id, and nothing else is.
void ExpectIndexConsistent(const ConstraintSet& set) {
  for (const Joint& c : set.joints()) {
    const Joint* found = set.Find(c.id);
    ASSERT_NE(found, nullptr) << c.id;
    EXPECT_EQ(found, &c) << c.id;
    EXPECT_TRUE(set.Contains(c.id));
  }
}

const BodyHandle kA{0, 0}, kB{1, 0}, kC{2, 0};

// Find returns the stored constraint with its data.
TEST(ConstraintSetTest, AddAndFind) {
  ConstraintSet set;
  set.Add(Point("p1", kA, kB));
  set.Add(Point("p2", kB));
  EXPECT_EQ(set.size(), 2);
  ASSERT_NE(set.Find("p2"), nullptr);
  EXPECT_EQ(set.Find("p2")->body_a, kB);
  EXPECT_TRUE(set.Find("p2")->body_b.IsNull());
  EXPECT_EQ(set.Find("nope"), nullptr);
  EXPECT_FALSE(set.Contains("nope"));
  ExpectIndexConsistent(set);
}

// Removing from the front moves the last constraint into the hole; the id map follows.
TEST(ConstraintSetTest, SwapRemoveKeepsIndexMapRight) {
  ConstraintSet set;
  set.Add(Point("c0", kA));
  set.Add(Point("c1", kB));
  set.Add(Point("c2", kC));
  set.Add(Point("c3", kA, kC));
  set.Remove("c0");
  ASSERT_EQ(set.size(), 3);
  EXPECT_EQ(set.joints()[0].id, "c3");
  EXPECT_FALSE(set.Contains("c0"));
  ASSERT_NE(set.Find("c3"), nullptr);
  EXPECT_EQ(set.Find("c3")->body_b, kC);
  EXPECT_EQ(set.Find("c3")->frame_b.position, Vec3(0, '3', 0));
  ExpectIndexConsistent(set);

  set.Remove("c2");  // now the last one: no swap
  set.Remove("c1");
  ASSERT_EQ(set.size(), 1);
  EXPECT_EQ(set.joints()[0].id, "c3");
  ExpectIndexConsistent(set);

  set.Remove("c3");
  EXPECT_EQ(set.size(), 0);
  EXPECT_EQ(set.Find("c3"), nullptr);
}

// Removing an unknown id changes nothing.
TEST(ConstraintSetTest, RemoveUnknownIsNoOp) {
  ConstraintSet set;
  set.Add(Point("c0", kA));
  set.Remove("zz");
  EXPECT_EQ(set.size(), 1);
  ExpectIndexConsistent(set);
}

// Constraints naming the body on either side go; the others stay findable.
TEST(ConstraintSetTest, RemoveAttachedTo) {
  ConstraintSet set;
  set.Add(Point("ab", kA, kB));
  set.Add(Point("b-world", kB));
  set.Add(Point("ac", kA, kC));
  set.Add(Point("cb", kC, kB));
  set.Add(Point("c-world", kC));
  EXPECT_THAT(set.RemoveAttachedTo(kB), UnorderedElementsAre("ab", "b-world", "cb"));
  ASSERT_EQ(set.size(), 2);
  EXPECT_TRUE(set.Contains("ac"));
  EXPECT_TRUE(set.Contains("c-world"));
  EXPECT_FALSE(set.Contains("ab"));
  EXPECT_FALSE(set.Contains("cb"));
  ExpectIndexConsistent(set);
  EXPECT_THAT(set.RemoveAttachedTo(kB), ElementsAre());
}

// A handle of another generation on the same slot is another body.
TEST(ConstraintSetTest, RemoveAttachedToMatchesGeneration) {
  ConstraintSet set;
  set.Add(Point("old", BodyHandle{4, 1}));
  set.Add(Point("new", BodyHandle{4, 2}));
  EXPECT_THAT(set.RemoveAttachedTo(BodyHandle{4, 2}), ElementsAre("new"));
  EXPECT_TRUE(set.Contains("old"));
  ExpectIndexConsistent(set);
}

// A swap-remove moves the whole joint: kind, limits, curve and the runtime state.
TEST(ConstraintSetTest, SwapRemoveMovesParamsAndRuntimeState) {
  ConstraintSet set;
  set.Add(Point("first", kA));
  Joint curve;
  curve.id = "curve";
  curve.params.kind = JointKind::kCurve;
  curve.params.curve = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0)};
  curve.params.smooth = true;
  curve.params.friction = 0.3;
  curve.params.curve_end = CurveEnd::kRelease;
  curve.body_b = kB;
  curve.frame_b.position = Vec3(0.1, 0.2, 0.3);
  curve.forces[1] = Vec3(4, 5, 6);
  curve.curve_segment = 1;
  curve.curve_samples = {Vec3(0, 0, 0), Vec3(1, 0, 0)};
  curve.curve_normal = Vec3(0, 0, 1);
  set.Add(curve);
  Joint hinge = Point("hinge", kA, kC);
  hinge.params.kind = JointKind::kHinge;
  hinge.params.limited = true;
  hinge.params.lower = -0.5;
  hinge.params.upper = 1.5;
  hinge.frame_a.orientation = Quat(Eigen::AngleAxisd(0.25, Vec3::UnitY()));
  set.Add(hinge);

  set.Remove("first");  // "hinge" moves to the front
  ASSERT_EQ(set.size(), 2);
  const Joint* h = set.Find("hinge");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h, &set.joints()[0]);
  EXPECT_EQ(h->params.kind, JointKind::kHinge);
  EXPECT_TRUE(h->params.limited);
  EXPECT_EQ(h->params.lower, -0.5);
  EXPECT_EQ(h->params.upper, 1.5);
  EXPECT_TRUE(h->frame_a.orientation.isApprox(hinge.frame_a.orientation, 1e-15));
  EXPECT_EQ(h->body_b, kC);

  set.Remove("hinge");  // "curve" moves to the front
  ASSERT_EQ(set.size(), 1);
  const Joint* c = set.Find("curve");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->body_a.IsNull());
  EXPECT_EQ(c->body_b, kB);
  EXPECT_EQ(c->params.curve, curve.params.curve);
  EXPECT_TRUE(c->params.smooth);
  EXPECT_EQ(c->params.friction, 0.3);
  EXPECT_EQ(c->params.curve_end, CurveEnd::kRelease);
  EXPECT_EQ(c->forces[1], Vec3(4, 5, 6));
  EXPECT_EQ(c->curve_segment, 1u);
  EXPECT_EQ(c->curve_samples, curve.curve_samples);
  EXPECT_EQ(c->curve_normal, Vec3(0, 0, 1));
  // The curve's body is on side B: removing B's constraints finds it.
  EXPECT_THAT(set.RemoveAttachedTo(kB), ElementsAre("curve"));
  ExpectIndexConsistent(set);
}

}  // namespace
}  // namespace ligature
