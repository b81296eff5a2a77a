// Shapes against triangle meshes: on a flat grid every shape gets the points a plane would
// give it wherever it stands over seams and corners; convex ridges keep their edge normals,
// concave valleys give one point per face; triangles collide on their front.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/support/grid_mesh.h"
#include "tests/unit/collision/collision_test_util.h"
#include "tests/unit/collision/pairs/hull_fixtures.h"

namespace ligature {
namespace {

using collision_testing::AlongX;
using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::Pose;
using testing::GridMesh;

const Vec3 kDown(0, -1, 0);

// 1 m cells over [-2, 2]^2: seams at every integer x and z, and the cells' diagonals.
Shape Floor() { return Shape::Mesh(GridMesh(4, 1.0)); }

// A sphere pressed 1 mm into the floor gets one point straight below its centre, wherever
// it is: over a face, a seam, a diagonal or a corner where six triangles meet.
TEST(SphereMeshTest, OneFacePointAnywhereOnAFlatFloor) {
  const Shape floor = Floor();
  const Shape ball = Shape::Sphere(0.3);
  for (double x = -1.5; x <= 1.5; x += 0.125) {
    for (double z = -1.5; z <= 1.5; z += 0.125) {
      ContactManifold m;
      ASSERT_EQ(
          CollideSphereMesh(ball, Pose(Vec3(x, 0.299, z)), floor, Pose(Vec3::Zero()), 0.02, &m), 1)
          << x << " " << z;
      ExpectHasPoint(m, Vec3(x, -0.0005, z), kDown, -0.001, 1e-12);
    }
  }
}

// Just beside a seam, within the margin of the neighbouring triangle's edge: still one
// point, the face's.
TEST(SphereMeshTest, NeighbourEdgeWithinTheMarginAddsNothing) {
  const Shape floor = Floor();
  for (const double dx : {1e-7, 1e-4, 0.01, 0.05}) {
    ContactManifold m;
    ASSERT_EQ(CollideSphereMesh(Shape::Sphere(0.3), Pose(Vec3(1.0 + dx, 0.31, 0.4)), floor,
                                Pose(Vec3::Zero()), 0.05, &m),
              1);
    ExpectHasPoint(m, Vec3(1.0 + dx, 0.005, 0.4), kDown, 0.01, 1e-12);
  }
}

// Triangles collide on their front: a sphere sunk below the floor (centre 0.1 m under it)
// is pushed back up out of it; one wholly behind the triangles' prisms, or touching them
// from behind, gets nothing.
TEST(SphereMeshTest, SunkInIsPushedOutBehindIsLeftAlone) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereMesh(Shape::Sphere(0.3), Pose(Vec3(0.2, -0.1, 0.7)), Floor(),
                              Pose(Vec3::Zero()), 0.02, &m),
            1);
  ExpectHasPoint(m, Vec3(0.2, -0.2, 0.7), kDown, -0.4, 1e-12);
  EXPECT_EQ(CollideSphereMesh(Shape::Sphere(0.3), Pose(Vec3(0.2, -3.0, 0.7)), Floor(),
                              Pose(Vec3::Zero()), 0.02, &m),
            0);
  // The prisms reach 1 m behind the 1 m cells' sides (their longest edge is the diagonal).
  EXPECT_EQ(CollideSphereMesh(Shape::Sphere(0.3), Pose(Vec3(0.2, -std::sqrt(2.0) - 0.299, 0.7)),
                              Floor(), Pose(Vec3::Zero()), 0.02, &m),
            0);
}

// A convex ridge (45 degree slopes) is active: a sphere beyond both faces' regions touches
// the ridge line along the direction from its centre.
TEST(SphereMeshTest, ConvexRidgeKeepsItsEdgeNormal) {
  const Shape roof = Shape::Mesh(GridMesh(4, 1.0, [](double x, double) { return -std::abs(x); }));
  const Vec3 centre(0.1, 0.5, 0.3);
  const double r = centre.head<2>().norm() + 0.001;
  ContactManifold m;
  ASSERT_EQ(CollideSphereMesh(Shape::Sphere(r), Pose(centre), roof, Pose(Vec3::Zero()), 0.02, &m),
            1);
  const Vec3 n = Vec3(-0.1, -0.5, 0).normalized();
  ExpectHasPoint(m, Vec3(0, 0, 0.3) + 0.0005 * n, n, -0.001, 1e-12);
}

// A sphere in a concave valley touches both faces, each along its own normal.
TEST(SphereMeshTest, ConcaveValleyGivesOnePointPerFace) {
  const Shape valley = Shape::Mesh(GridMesh(4, 1.0, [](double x, double) { return std::abs(x); }));
  const double h = 0.5, r = h / std::sqrt(2.0) + 0.001;
  ContactManifold m;
  ASSERT_EQ(CollideSphereMesh(Shape::Sphere(r), Pose(Vec3(0, h, 0.6)), valley, Pose(Vec3::Zero()),
                              0.0, &m),
            2);
  for (const double side : {1.0, -1.0}) {
    const Vec3 n = Vec3(side, -1, 0).normalized();
    const Vec3 on_sphere = Vec3(0, h, 0.6) + r * n;
    ExpectHasPoint(m, on_sphere - 0.0005 * n, n, -0.001, 1e-12);
  }
}

// Four points of the box's bottom face, each at its depth along the floor's normal; each
// corner has one within `reach` (exactly on it but where a seam crosses the face so near
// the corner that a triangle's own four points kept the crossing instead).
void ExpectBottomFace(const ContactManifold& m, const Transform& pose, const Vec3& half,
                      double depth, double reach) {
  ASSERT_EQ(m.count, 4);
  for (int i = 0; i < m.count; ++i) {
    const Vec3 local = pose.InverseApply(m.points[i].position + Vec3(0, 0.5 * depth, 0));
    EXPECT_NEAR(local.y(), -half.y(), 1e-12);
    EXPECT_LE(std::abs(local.x()), half.x() + 1e-12);
    EXPECT_LE(std::abs(local.z()), half.z() + 1e-12);
    EXPECT_LT((m.points[i].normal - kDown).norm(), 1e-12);
    EXPECT_NEAR(m.points[i].distance, depth, 1e-12);
  }
  for (const double sx : {-1.0, 1.0}) {
    for (const double sz : {-1.0, 1.0}) {
      const Vec3 corner = pose.Apply(Vec3(sx * half.x(), -half.y(), sz * half.z()));
      const ContactPoint* p = collision_testing::NearestPoint(m, corner - Vec3(0, 0.5 * depth, 0));
      EXPECT_LT((p->position - (corner - Vec3(0, 0.5 * depth, 0))).norm(), reach);
    }
  }
}

// A box turned about Y and pressed 2 mm in, over seams and diagonals: four points of its
// bottom face, at its corners.
TEST(BoxMeshTest, FourBottomCornersAnywhereOnAFlatFloor) {
  const Shape floor = Floor();
  const Vec3 half(0.37, 0.2, 0.29);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.4, 1.4), angle(0.0, 180.0);
  for (int trial = 0; trial < 40; ++trial) {
    const Transform pose =
        Pose(Vec3(u(rng), 0.198, u(rng)), AxisAngleDeg(Vec3::UnitY(), angle(rng)));
    ContactManifold m;
    CollideBoxMesh(Shape::Box(half), pose, floor, Pose(Vec3::Zero()), 0.01, &m);
    SCOPED_TRACE(trial);
    ExpectWellFormed(m, 0.01);
    ExpectBottomFace(m, pose, half, -0.002, 0.01);
  }
}

// The same box as a hull: the same four corners.
TEST(HullMeshTest, BoxHullGetsTheBoxCorners) {
  const Vec3 half(0.37, 0.2, 0.29);
  const Transform pose = Pose(Vec3(0.93, 0.198, -0.41), AxisAngleDeg(Vec3::UnitY(), 33));
  ContactManifold m;
  CollideHullMesh(Shape::Hull(hull_fixtures::BoxHull(half)), pose, Floor(), Pose(Vec3::Zero()),
                  0.01, &m);
  ExpectBottomFace(m, pose, half, -0.002, 0.01);
}

// A capsule lying across seams (and along one): a point under each end of its segment,
// and any others (where seams cross it) on the line between.
TEST(CapsuleMeshTest, LyingCapsuleGetsBothEnds) {
  for (const double z : {1.0, 0.37}) {
    const Transform pose = Pose(Vec3(-0.2, 0.099, z), AlongX());
    ContactManifold m;
    ASSERT_GE(
        CollideCapsuleMesh(Shape::Capsule(0.1, 0.6), pose, Floor(), Pose(Vec3::Zero()), 0.01, &m),
        2);
    ExpectWellFormed(m, 0.01);
    for (const double x : {-0.8, 0.4}) ExpectHasPoint(m, Vec3(x, -0.0005, z), kDown, -0.001, 1e-9);
    for (int i = 0; i < m.count; ++i) {
      EXPECT_LT((m.points[i].position - Vec3(m.points[i].position.x(), -0.0005, z)).norm(), 1e-9);
      EXPECT_GE(m.points[i].position.x(), -0.8 - 1e-9);
      EXPECT_LE(m.points[i].position.x(), 0.4 + 1e-9);
      EXPECT_NEAR(m.points[i].distance, -0.001, 1e-9);
    }
  }
}

// A rigid motion of the whole scene moves the points with it.
TEST(SphereMeshTest, MovedMeshMovesThePoints) {
  const Transform motion = Pose(Vec3(3, -1, 2), AxisAngleDeg(Vec3(1, 2, -1), 50));
  ContactManifold m;
  ASSERT_EQ(CollideSphereMesh(Shape::Sphere(0.3), motion * Pose(Vec3(1.0, 0.299, 0.0)), Floor(),
                              motion, 0.02, &m),
            1);
  ExpectHasPoint(m, motion.Apply(Vec3(1.0, -0.0005, 0.0)), motion.Rotate(kDown), -0.001, 1e-9);
}

// Through the table: the mesh as `a` flips the normal; meshes meet planes and meshes never.
TEST(MeshNarrowphaseTest, DispatchFlipsAndFixedPairsAreEmpty) {
  const Shape floor = Floor();
  ContactManifold m;
  ASSERT_EQ(
      Collide(floor, Pose(Vec3::Zero()), Shape::Sphere(0.3), Pose(Vec3(0.5, 0.299, 0.5)), 0.02, &m),
      1);
  EXPECT_LT((m.points[0].normal - Vec3::UnitY()).norm(), 1e-12);
  EXPECT_EQ(Collide(floor, Pose(Vec3::Zero()), Shape::Plane(), Pose(Vec3::Zero()), 1.0, &m), 0);
  EXPECT_EQ(Collide(floor, Pose(Vec3::Zero()), floor, Pose(Vec3(0, 0.1, 0)), 1.0, &m), 0);
  // Far from every triangle: nothing.
  EXPECT_EQ(Collide(Shape::Box(Vec3::Constant(0.2)), Pose(Vec3(9, 0, 0)), floor, Pose(Vec3::Zero()),
                    0.1, &m),
            0);
}

}  // namespace
}  // namespace ligature
