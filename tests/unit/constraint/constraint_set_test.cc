#include "server/constraint/constraint_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ligature {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

PointConstraint Point(const std::string& id, BodyHandle a, BodyHandle b = {}) {
  PointConstraint c;
  c.id = id;
  c.body_a = a;
  c.body_b = b;
  c.anchor_a = Vec3(id.size(), 0.0, 0.0);
  c.anchor_b = Vec3(0.0, static_cast<double>(id.back()), 0.0);
  return c;
}

// Every stored constraint is found under its own id, and nothing else is.
void ExpectIndexConsistent(const ConstraintSet& set) {
  for (const PointConstraint& c : set.points()) {
    const PointConstraint* found = set.Find(c.id);
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
  EXPECT_EQ(set.points()[0].id, "c3");
  EXPECT_FALSE(set.Contains("c0"));
  ASSERT_NE(set.Find("c3"), nullptr);
  EXPECT_EQ(set.Find("c3")->body_b, kC);
  EXPECT_EQ(set.Find("c3")->anchor_b, Vec3(0, '3', 0));
  ExpectIndexConsistent(set);

  set.Remove("c2");  // now the last one: no swap
  set.Remove("c1");
  ASSERT_EQ(set.size(), 1);
  EXPECT_EQ(set.points()[0].id, "c3");
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

}  // namespace
}  // namespace ligature
