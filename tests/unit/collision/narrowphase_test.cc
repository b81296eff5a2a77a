#include "server/collision/narrowphase.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"
#include "tests/unit/collision/pairs/hull_fixtures.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::ExpectWellFormed;
using collision_testing::Pose;

Shape TestHull() { return Shape::Hull(hull_fixtures::OctahedronHull(0.7)); }

std::vector<Shape> AllShapes() {
  return {Shape::Sphere(0.5), Shape::Box(Vec3(0.6, 0.4, 0.8)), Shape::Capsule(0.3, 0.7),
          Shape::Plane(), TestHull()};
}

const char* Name(ShapeType t) {
  switch (t) {
    case ShapeType::kSphere:
      return "sphere";
    case ShapeType::kBox:
      return "box";
    case ShapeType::kCapsule:
      return "capsule";
    case ShapeType::kPlane:
      return "plane";
    case ShapeType::kHull:
      return "hull";
    case ShapeType::kMesh:
      return "mesh";
  }
  return "?";
}

// Each cell of the table reaches the function written for that pair: same result as
// calling it directly with the lower type first.
TEST(NarrowphaseTest, DispatchMatchesDirectCalls) {
  const Transform pa = Pose(Vec3(0.1, 0.2, 0.0), AxisAngleDeg(Vec3(1, 0, 1), 20));
  const Transform pb = Pose(Vec3(0.3, 0.7, -0.1), AxisAngleDeg(Vec3(0, 1, 1), 35));
  const Shape sphere = Shape::Sphere(0.5), box = Shape::Box(Vec3(0.6, 0.4, 0.8)),
              capsule = Shape::Capsule(0.3, 0.7), plane = Shape::Plane(), hull = TestHull();
  struct Case {
    const Shape* a;
    const Shape* b;
    PairFunction fn;
  };
  const Case cases[] = {
      {&sphere, &sphere, CollideSphereSphere},
      {&sphere, &box, CollideSphereBox},
      {&sphere, &capsule, CollideSphereCapsule},
      {&sphere, &plane, CollideSpherePlane},
      {&box, &box, CollideBoxBox},
      {&box, &capsule, CollideBoxCapsule},
      {&box, &plane, CollideBoxPlane},
      {&capsule, &capsule, CollideCapsuleCapsule},
      {&capsule, &plane, CollideCapsulePlane},
      {&sphere, &hull, CollideSphereHull},
      {&box, &hull, CollideBoxHull},
      {&capsule, &hull, CollideCapsuleHull},
      {&hull, &plane, CollideHullPlane},
      {&hull, &hull, CollideHullHull},
  };
  for (const Case& c : cases) {
    ContactManifold via_table, direct;
    const int n = Collide(*c.a, pa, *c.b, pb, 0.1, &via_table);
    ASSERT_EQ(n, c.fn(*c.a, pa, *c.b, pb, 0.1, &direct))
        << Name(c.a->type) << "-" << Name(c.b->type);
    ASSERT_GT(n, 0) << Name(c.a->type) << "-" << Name(c.b->type);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(via_table.points[i].position, direct.points[i].position);
      EXPECT_EQ(via_table.points[i].normal, direct.points[i].normal);
      EXPECT_EQ(via_table.points[i].distance, direct.points[i].distance);
    }
  }
}

// Mixed pairs: swapping the arguments gives the same points with opposite normals.
TEST(NarrowphaseTest, SwappedMixedPairsFlipNormals) {
  const std::vector<Shape> shapes = AllShapes();
  const Transform pa = Pose(Vec3(0.1, 0.3, 0.0), AxisAngleDeg(Vec3(1, 0, 1), 20));
  const Transform pb = Pose(Vec3(0.3, 0.6, -0.1), AxisAngleDeg(Vec3(0, 1, 1), 35));
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      if (a.type >= b.type) continue;
      ContactManifold ab, ba;
      const int n = Collide(a, pa, b, pb, 0.05, &ab);
      ASSERT_EQ(Collide(b, pb, a, pa, 0.05, &ba), n) << Name(a.type) << "-" << Name(b.type);
      EXPECT_GT(n, 0) << Name(a.type) << "-" << Name(b.type);
      for (int i = 0; i < n; ++i) {
        EXPECT_LT((ab.points[i].normal + ba.points[i].normal).norm(), 1e-12);
        EXPECT_EQ(ab.points[i].position, ba.points[i].position);
        EXPECT_EQ(ab.points[i].distance, ba.points[i].distance);
      }
    }
  }
}

TEST(NarrowphaseTest, PlanePlaneIsEmptyAndOutputIsCleared) {
  ContactManifold m;
  ASSERT_EQ(
      Collide(Shape::Sphere(1), Pose(Vec3::Zero()), Shape::Sphere(1), Pose(Vec3(1, 0, 0)), 0.0, &m),
      1);
  EXPECT_EQ(
      Collide(Shape::Plane(), Pose(Vec3::Zero()), Shape::Plane(), Pose(Vec3::Zero()), 1.0, &m), 0);
  EXPECT_EQ(m.count, 0);
}

TEST(NarrowphaseTest, FarApartGivesNothingForEveryPair) {
  const std::vector<Shape> shapes = AllShapes();
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      if (a.type == ShapeType::kPlane || b.type == ShapeType::kPlane) continue;
      ContactManifold m;
      EXPECT_EQ(Collide(a, Pose(Vec3::Zero()), b, Pose(Vec3(5, 1, 2)), 0.5, &m), 0)
          << Name(a.type) << "-" << Name(b.type);
    }
  }
}

// Random poses for every pair, including coincident ones: never NaN, unit normals, at most
// four points, distances below the margin; touching centres always give contacts.
TEST(NarrowphaseTest, RandomPosesAreWellFormed) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::vector<Shape> shapes = AllShapes();
  for (int trial = 0; trial < 300; ++trial) {
    const Transform pa =
        Pose(Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const bool coincident = trial % 10 == 0;
    const Transform pb = coincident ? pa
                                    : Pose(Vec3(u(rng), u(rng), u(rng)),
                                           Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    for (const Shape& a : shapes) {
      for (const Shape& b : shapes) {
        ContactManifold m;
        const int n = Collide(a, pa, b, pb, 0.1, &m);
        ASSERT_EQ(n, m.count);
        ExpectWellFormed(m, 0.1);
        if (coincident || (pa.position - pb.position).norm() < 0.3) {
          if (a.type != ShapeType::kPlane || b.type != ShapeType::kPlane) {
            EXPECT_GT(n, 0) << Name(a.type) << "-" << Name(b.type) << " trial " << trial;
          }
        }
      }
    }
  }
}

// Degenerate shapes (zero sizes) at coincident poses stay finite.
TEST(NarrowphaseTest, ZeroSizedShapesAreFinite) {
  const std::vector<Shape> shapes = {Shape::Sphere(0.0), Shape::Box(Vec3::Zero()),
                                     Shape::Capsule(0.0, 0.0), Shape::Capsule(0.0, 1.0),
                                     Shape::Plane()};
  const Transform p = Pose(Vec3(1, 1, 1));
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      ContactManifold m;
      Collide(a, p, b, p, 0.1, &m);
      ExpectWellFormed(m, 0.1);
    }
  }
}

}  // namespace
}  // namespace ligature
