#include "server/collision/placed_shape.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "server/collision/aabb.h"
#include "server/collision/narrowphase.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::Pose;

Quat RandomRotation(std::mt19937* rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  Quat q(g(*rng), g(*rng), g(*rng), g(*rng));
  q.normalize();
  return q;
}

// A sphere, box or capsule of random size (0.02 m to 0.6 m).
Shape RandomShape(std::mt19937* rng) {
  std::uniform_real_distribution<double> size(0.02, 0.6);
  switch (std::uniform_int_distribution<int>(0, 2)(*rng)) {
    case 0:
      return Shape::Sphere(size(*rng));
    case 1:
      return Shape::Box(Vec3(size(*rng), size(*rng), size(*rng)));
    default:
      return Shape::Capsule(size(*rng), size(*rng));
  }
}

// A shape is placed where its body puts it, with the bounds ComputeAabb gives there.
TEST(PlacedShapeTest, PoseAndBoundsAreTheChildsInTheWorld) {
  const ChildShape child{Shape::Capsule(0.1, 0.4),
                         Pose(Vec3(0.3, 0.0, 0.0), AxisAngleDeg(Vec3::UnitZ(), 90))};
  const Transform body = Pose(Vec3(1.0, 2.0, 3.0), AxisAngleDeg(Vec3::UnitY(), 90));
  const PlacedShape placed = PlaceShape(child, body, 0.05);
  const Transform expected = body * child.local;
  EXPECT_EQ(placed.pose.position, expected.position);
  EXPECT_EQ(placed.pose.orientation.coeffs(), expected.orientation.coeffs());
  const Aabb bounds = ComputeAabb(child.shape, expected, 0.05);
  EXPECT_EQ(placed.bounds.min, bounds.min);
  EXPECT_EQ(placed.bounds.max, bounds.max);
  EXPECT_GT(placed.slack, 0.0);
  EXPECT_LT(placed.slack, 1e-4);
}

// Bounds overlapping, touching or within the slack are not apart; beyond it they are.
TEST(PlacedShapeTest, ApartOnlyBeyondTheSlack) {
  const ChildShape sphere{Shape::Sphere(0.5), Transform{}};
  const PlacedShape a = PlaceShape(sphere, Pose(Vec3::Zero()), 0.0);
  const double room = 2.0 * a.slack;
  for (int axis = 0; axis < 3; ++axis) {
    Vec3 offset = Vec3::Zero();
    offset[axis] = 1.0 + 0.5 * room;  // within the slack
    EXPECT_FALSE(BoundsApart(a, PlaceShape(sphere, Pose(offset), 0.0))) << axis;
    offset[axis] = -1.0 - 0.5 * room;
    EXPECT_FALSE(BoundsApart(a, PlaceShape(sphere, Pose(offset), 0.0))) << axis;
    offset[axis] = 1.0 + 2.0 * room;  // beyond it
    EXPECT_TRUE(BoundsApart(a, PlaceShape(sphere, Pose(offset), 0.0))) << axis;
    offset[axis] = -1.0 - 2.0 * room;
    EXPECT_TRUE(BoundsApart(a, PlaceShape(sphere, Pose(offset), 0.0))) << axis;
  }
}

// A plane's bounds are unbounded: never apart from anything, itself included.
TEST(PlacedShapeTest, PlanesAreNeverApart) {
  const PlacedShape plane = PlaceShape({Shape::Plane(), Transform{}}, Pose(Vec3::Zero()), 0.01);
  const PlacedShape far =
      PlaceShape({Shape::Sphere(0.1), Transform{}}, Pose(Vec3(1e6, -1e6, 3e5)), 0.01);
  EXPECT_FALSE(BoundsApart(plane, far));
  EXPECT_FALSE(BoundsApart(far, plane));
  EXPECT_FALSE(BoundsApart(plane, plane));
}

// Shapes whose bounds are apart give no contact at the pair margin (the sum of both
// growths), checked on random pairs slid along a world axis until their bounds are just
// apart (the hardest case: the shapes are then about one margin apart) or at random gaps.
TEST(PlacedShapeTest, ApartShapesNeverHaveContacts) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> grow_of(0.0, 0.05);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> spread(-0.2, 0.2);
  int apart = 0;
  int apart_at_edge = 0;
  int near = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const ChildShape ca{RandomShape(&rng), Transform{}};
    const ChildShape cb{RandomShape(&rng), Transform{}};
    const double grow_a = grow_of(rng);
    const double grow_b = grow_of(rng);
    const Transform pa = Pose(Vec3(spread(rng), spread(rng), spread(rng)), RandomRotation(&rng));
    Transform pb = Pose(Vec3(spread(rng), spread(rng), spread(rng)), RandomRotation(&rng));
    // Half the trials axis-aligned, where a face lies flat along the bounds.
    if (trial % 2 == 0) pb.orientation = Quat::Identity();
    const PlacedShape a = PlaceShape(ca, pa, grow_a);
    PlacedShape b = PlaceShape(cb, pb, grow_b);
    // Slide B along a random axis so that the gap between the bounds is the room plus a
    // small amount (just apart), or a random gap of either sign.
    const int axis = std::uniform_int_distribution<int>(0, 2)(rng);
    const double room = a.slack + b.slack;
    const double gap = trial % 3 == 0 ? room * (1.0 + 1e-3 + unit(rng))
                                      : room + 0.02 * (unit(rng) - 0.5);
    pb.position[axis] += a.bounds.max[axis] + gap - b.bounds.min[axis];
    b = PlaceShape(cb, pb, grow_b);
    ContactManifold m;
    const int count = Collide(ca.shape, a.pose, cb.shape, b.pose, grow_a + grow_b, &m);
    if (BoundsApart(a, b)) {
      ++apart;
      if (trial % 3 == 0) ++apart_at_edge;
      EXPECT_EQ(count, 0) << "trial " << trial << ": shapes " << static_cast<int>(ca.shape.type)
                          << " and " << static_cast<int>(cb.shape.type);
    } else if (count > 0) {
      ++near;
    }
  }
  // The trials covered both sides of the boundary.
  EXPECT_GT(apart, 5000);
  EXPECT_GT(apart_at_edge, 3000);
  EXPECT_GT(near, 500);
}

// Compound bodies: the contacts of every child pair whose bounds are not apart equal, point
// for point and in order, the contacts of every child pair.
TEST(PlacedShapeTest, CullingKeepsEveryContactOfCompounds) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> local(-0.4, 0.4);
  std::uniform_real_distribution<double> where(-0.8, 0.8);
  std::uniform_real_distribution<double> grow_of(0.0, 0.05);
  int culled = 0;
  std::size_t total = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<ChildShape> body[2];
    std::vector<PlacedShape> placed[2];
    Transform pose[2];
    double grow[2];
    for (int i = 0; i < 2; ++i) {
      const int children = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int k = 0; k < children; ++k) {
        body[i].push_back(
            {RandomShape(&rng), Pose(Vec3(local(rng), local(rng), local(rng)), RandomRotation(&rng))});
      }
      pose[i] = Pose(Vec3(where(rng), where(rng), where(rng)), RandomRotation(&rng));
      grow[i] = grow_of(rng);
      for (const ChildShape& c : body[i]) placed[i].push_back(PlaceShape(c, pose[i], grow[i]));
    }
    const double margin = grow[0] + grow[1];
    std::vector<ContactPoint> all;
    std::vector<ContactPoint> kept;
    ContactManifold m;
    for (std::size_t ka = 0; ka < body[0].size(); ++ka) {
      for (std::size_t kb = 0; kb < body[1].size(); ++kb) {
        const ChildShape& ca = body[0][ka];
        const ChildShape& cb = body[1][kb];
        Collide(ca.shape, pose[0] * ca.local, cb.shape, pose[1] * cb.local, margin, &m);
        all.insert(all.end(), m.points.begin(), m.points.begin() + m.count);
        if (BoundsApart(placed[0][ka], placed[1][kb])) {
          ++culled;
          continue;
        }
        Collide(ca.shape, placed[0][ka].pose, cb.shape, placed[1][kb].pose, margin, &m);
        kept.insert(kept.end(), m.points.begin(), m.points.begin() + m.count);
      }
    }
    ASSERT_EQ(kept.size(), all.size()) << "trial " << trial;
    for (std::size_t k = 0; k < all.size(); ++k) {
      EXPECT_EQ(kept[k].position, all[k].position) << "trial " << trial;
      EXPECT_EQ(kept[k].normal, all[k].normal) << "trial " << trial;
      EXPECT_EQ(kept[k].distance, all[k].distance) << "trial " << trial;
    }
    total += all.size();
  }
  EXPECT_GT(culled, 3000);
  EXPECT_GT(total, 3000u);
}

}  // namespace
}  // namespace ligature
