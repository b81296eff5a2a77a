#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"
#include "tests/unit/collision/pairs/hull_fixtures.h"

namespace ligature {
namespace {

using collision_testing::AlongX;
using collision_testing::AlongZ;
using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::Pose;
using hull_fixtures::BoxHull;
using hull_fixtures::HullShape;
using hull_fixtures::OctahedronHull;
using hull_fixtures::PrismHull;
using hull_fixtures::TetrahedronHull;

const double kSqrt2 = std::sqrt(2.0);
const double kSqrt3 = std::sqrt(3.0);
// Unit vector along (1, 1, 1): the outward normal of the octahedron's (+, +, +) face and
// minus that of the unit tetrahedron's face opposite its vertex (1, 1, 1).
const Vec3 kU = Vec3(1, 1, 1) / std::sqrt(3.0);

const Shape kTetra = HullShape(TetrahedronHull(1.0));

// Every point of `expected` has a point of `actual` at the same place with the same normal
// and distance, and the counts agree.
void ExpectSameManifold(const ContactManifold& actual, const ContactManifold& expected,
                        double tol = 1e-9) {
  ASSERT_EQ(actual.count, expected.count);
  for (int i = 0; i < expected.count; ++i) {
    const ContactPoint& p = expected.points[i];
    ExpectHasPoint(actual, p.position, p.normal, p.distance, tol);
  }
}

// ---- brute-force references ----

// A hull's vertices at a pose.
std::vector<Vec3> WorldVertices(const ConvexHull& h, const Transform& pose) {
  std::vector<Vec3> out;
  for (const Vec3& v : h.vertices) out.push_back(pose.Apply(v));
  return out;
}

// Distance from `p` to face `f` of the hull at `pose` (the polygon, not its plane).
double PointFaceDistance(const Vec3& p, const ConvexHull& h, const ConvexHull::Face& f,
                         const Transform& pose) {
  const Vec3 n = pose.Rotate(f.normal);
  const Vec3 on_plane = p - (n.dot(p - pose.Apply(h.FaceVertex(f, 0)))) * n;
  bool inside = true;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < f.count; ++i) {
    const Vec3 a = pose.Apply(h.FaceVertex(f, i));
    const Vec3 b = pose.Apply(h.FaceVertex(f, (i + 1) % f.count));
    if ((b - a).cross(n).dot(on_plane - a) > 0.0) inside = false;
    best = std::min(best, (collision_testing::ProjectOntoSegment(p, a, b) - p).norm());
  }
  return inside ? (on_plane - p).norm() : best;
}

// True when some face normal or edge-pair cross product separates the two vertex sets.
bool Disjoint(const ConvexHull& ha, const Transform& pa, const ConvexHull& hb,
              const Transform& pb) {
  const std::vector<Vec3> va = WorldVertices(ha, pa), vb = WorldVertices(hb, pb);
  std::vector<Vec3> axes;
  for (const ConvexHull::Face& f : ha.faces) axes.push_back(pa.Rotate(f.normal));
  for (const ConvexHull::Face& f : hb.faces) axes.push_back(pb.Rotate(f.normal));
  for (const ConvexHull::Edge& ea : ha.edges) {
    for (const ConvexHull::Edge& eb : hb.edges) {
      const Vec3 c = (va[ea.b] - va[ea.a]).cross(vb[eb.b] - vb[eb.a]);
      if (c.norm() > 1e-9) axes.push_back(c.normalized());
    }
  }
  for (const Vec3& axis : axes) {
    double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
    for (const Vec3& v : va) amin = std::min(amin, v.dot(axis)), amax = std::max(amax, v.dot(axis));
    for (const Vec3& v : vb) bmin = std::min(bmin, v.dot(axis)), bmax = std::max(bmax, v.dot(axis));
    if (amax < bmin - 1e-9 || bmax < amin - 1e-9) return true;
  }
  return false;
}

// Distance between two disjoint hulls: the closest pair is a vertex against a face or an
// edge against an edge.
double DisjointHullDistance(const ConvexHull& ha, const Transform& pa, const ConvexHull& hb,
                            const Transform& pb) {
  const std::vector<Vec3> va = WorldVertices(ha, pa), vb = WorldVertices(hb, pb);
  double best = std::numeric_limits<double>::infinity();
  for (const Vec3& v : va) {
    for (const ConvexHull::Face& f : hb.faces)
      best = std::min(best, PointFaceDistance(v, hb, f, pb));
  }
  for (const Vec3& v : vb) {
    for (const ConvexHull::Face& f : ha.faces)
      best = std::min(best, PointFaceDistance(v, ha, f, pa));
  }
  for (const ConvexHull::Edge& ea : ha.edges) {
    for (const ConvexHull::Edge& eb : hb.edges) {
      const SegmentClosestPoints c =
          ClosestPointsBetweenSegments(va[ea.a], va[ea.b], vb[eb.a], vb[eb.b]);
      best = std::min(best, (c.on_second - c.on_first).norm());
    }
  }
  return best;
}

// ---- fixtures ----

TEST(HullFixturesTest, TetrahedronIsConsistent) {
  const ConvexHull& h = *kTetra.hull;
  ASSERT_EQ(h.vertices.size(), 4u);
  ASSERT_EQ(h.faces.size(), 4u);
  ASSERT_EQ(h.edges.size(), 6u);
  for (int f = 0; f < 4; ++f) {
    // Face f is opposite vertex f: normal -vertex / sqrt 3, offset 1 / sqrt 3.
    EXPECT_LT((h.faces[f].normal + h.vertices[f] / kSqrt3).norm(), 1e-12);
    EXPECT_NEAR(h.faces[f].offset, 1.0 / kSqrt3, 1e-12);
  }
  EXPECT_NEAR(h.bounding_radius, kSqrt3, 1e-12);
}

TEST(HullFixturesTest, AllFixturesAreClosedConvexAndCounterClockwise) {
  for (const auto& hull :
       {BoxHull(Vec3(1, 2, 3)), TetrahedronHull(0.7), OctahedronHull(1.3), PrismHull(1, 1, 2)}) {
    const ConvexHull& h = *hull;
    const int v = static_cast<int>(h.vertices.size());
    const int e = static_cast<int>(h.edges.size());
    const int f = static_cast<int>(h.faces.size());
    EXPECT_EQ(v - e + f, 2);
    for (const ConvexHull::Face& face : h.faces) {
      EXPECT_NEAR(face.normal.norm(), 1.0, 1e-12);
      for (const Vec3& p : h.vertices) EXPECT_LE(face.normal.dot(p), face.offset + 1e-12);
      for (int i = 0; i < face.count; ++i) {
        const Vec3& a = h.FaceVertex(face, i);
        const Vec3& b = h.FaceVertex(face, (i + 1) % face.count);
        const Vec3& c = h.FaceVertex(face, (i + 2) % face.count);
        EXPECT_NEAR(face.normal.dot(a), face.offset, 1e-12);
        EXPECT_GT((b - a).cross(c - b).dot(face.normal), 0.0);  // counter-clockwise
      }
    }
    for (const ConvexHull::Edge& edge : h.edges) {
      EXPECT_LT(edge.a, edge.b);
      for (int fi : {edge.face_left, edge.face_right}) {
        const ConvexHull::Face& face = h.faces[fi];
        EXPECT_NEAR(face.normal.dot(h.vertices[edge.a]), face.offset, 1e-12);
        EXPECT_NEAR(face.normal.dot(h.vertices[edge.b]), face.offset, 1e-12);
      }
    }
  }
}

// ---- sphere-hull ----

// Sphere of radius 0.5 with its surface 0.1 beyond the tetrahedron's face, edge and vertex.
TEST(SphereHullTest, FaceRegionGivesExactGapAndFaceNormal) {
  const Vec3 face_centre = -Vec3(1, 1, 1) / 3.0;  // face opposite (1, 1, 1)
  ContactManifold m;
  ASSERT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(face_centre - 0.6 * kU), kTetra,
                              Pose(Vec3::Zero()), 0.2, &m),
            1);
  ExpectHasPoint(m, face_centre - 0.05 * kU, kU, 0.1, 1e-12);
}

TEST(SphereHullTest, EdgeRegionGivesClosestEdgePoint) {
  // Edge from (1, -1, -1) to (-1, 1, -1): midpoint (0, 0, -1), its faces' normals average -Z.
  ContactManifold m;
  ASSERT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(Vec3(0, 0, -1.6)), kTetra,
                              Pose(Vec3::Zero()), 0.2, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 0, -1.05), Vec3::UnitZ(), 0.1, 1e-12);
  // Along the edge, off its midpoint: still the edge, same gap.
  ASSERT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(Vec3(0.4, -0.4, -1.6)), kTetra,
                              Pose(Vec3::Zero()), 0.2, &m),
            1);
  ExpectHasPoint(m, Vec3(0.4, -0.4, -1.05), Vec3::UnitZ(), 0.1, 1e-12);
}

TEST(SphereHullTest, VertexRegionGivesVertex) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(Vec3(1, 1, 1) + 0.6 * kU), kTetra,
                              Pose(Vec3::Zero()), 0.2, &m),
            1);
  ExpectHasPoint(m, Vec3(1, 1, 1) + 0.05 * kU, -kU, 0.1, 1e-12);
}

TEST(SphereHullTest, NothingBeyondTheMargin) {
  ContactManifold m;
  const Transform vertex_gap = Pose(Vec3(1, 1, 1) + 0.6 * kU);  // gap 0.1
  EXPECT_EQ(
      CollideSphereHull(Shape::Sphere(0.5), vertex_gap, kTetra, Pose(Vec3::Zero()), 0.099, &m), 0);
  EXPECT_EQ(m.count, 0);
  EXPECT_EQ(
      CollideSphereHull(Shape::Sphere(0.5), vertex_gap, kTetra, Pose(Vec3::Zero()), 0.101, &m), 1);
  // The edge point at gap 0.1 with margin 0: nothing (its face planes are nearer than 0.1).
  EXPECT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(Vec3(0, 0, -1.6)), kTetra,
                              Pose(Vec3::Zero()), 0.0, &m),
            0);
}

TEST(SphereHullTest, PenetratingLeavesThroughNearestFace) {
  // Centre 0.3 from the tetrahedron's centre towards the face opposite (1, 1, 1), which lies
  // 1 / sqrt 3 from the centre: the other faces are 0.1 farther from this centre.
  const Vec3 c = -0.3 * kU;
  ContactManifold m;
  ASSERT_EQ(CollideSphereHull(Shape::Sphere(0.5), Pose(c), kTetra, Pose(Vec3::Zero()), 0.0, &m), 1);
  const double depth = 1.0 / kSqrt3 - 0.3;
  // Sphere surface point c + 0.5 kU; hull point on the face plane, -kU / sqrt 3.
  ExpectHasPoint(m, 0.5 * (0.2 - 1.0 / kSqrt3) * kU, kU, -(depth + 0.5), 1e-12);
}

// Random centres around the octahedron: the gap is the distance to the nearest face
// polygon, whatever the region.
TEST(SphereHullTest, RandomCentresGetTheExactGap) {
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Transform pose = Pose(Vec3(0.3, -0.1, 0.2), AxisAngleDeg(Vec3(2, 1, -1), 25));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.6, 1.6);
  int contacts = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 c = pose.position + Vec3(u(rng), u(rng), u(rng));
    if (!Disjoint(*OctahedronHull(1.0), pose, *OctahedronHull(1e-9), Pose(c))) continue;
    double gap = std::numeric_limits<double>::infinity();
    for (const ConvexHull::Face& f : oct.hull->faces) {
      gap = std::min(gap, PointFaceDistance(c, *oct.hull, f, pose));
    }
    ContactManifold m;
    CollideSphereHull(Shape::Sphere(0.2), Pose(c), oct, pose, 0.3, &m);
    SCOPED_TRACE(trial);
    ASSERT_EQ(m.count, gap - 0.2 < 0.3 ? 1 : 0);
    if (m.count == 0) continue;
    ++contacts;
    EXPECT_NEAR(m.points[0].distance, gap - 0.2, 1e-12);
  }
  EXPECT_GT(contacts, 50);
}

TEST(SphereHullTest, AgreesWithSphereBoxOnBoxHull) {
  const Vec3 half(0.6, 0.4, 0.8);
  const Shape hull = HullShape(BoxHull(half));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  int contacts = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Transform pb = Pose(Vec3(0.1, -0.2, 0.3), AxisAngleDeg(Vec3(1, 2, 3), 40));
    const Transform pa = Pose(pb.position + Vec3(u(rng), u(rng), u(rng)));
    ContactManifold via_hull, via_box;
    CollideSphereHull(Shape::Sphere(0.3), pa, hull, pb, 0.05, &via_hull);
    CollideSphereBox(Shape::Sphere(0.3), pa, Shape::Box(half), pb, 0.05, &via_box);
    ExpectSameManifold(via_hull, via_box, 1e-12);
    contacts += via_box.count;
  }
  EXPECT_GT(contacts, 100);
}

// ---- box-hull: the hull is a box, so box-box is the reference ----

void ExpectBoxHullMatchesBoxBox(const Vec3& half_a, const Transform& pa, const Vec3& half_b,
                                const Transform& pb, double margin, int expected_count) {
  ContactManifold via_hull, via_box;
  CollideBoxHull(Shape::Box(half_a), pa, HullShape(BoxHull(half_b)), pb, margin, &via_hull);
  CollideBoxBox(Shape::Box(half_a), pa, Shape::Box(half_b), pb, margin, &via_box);
  EXPECT_EQ(via_box.count, expected_count);
  ExpectWellFormed(via_hull, margin);
  ExpectSameManifold(via_hull, via_box);
}

TEST(BoxHullTest, SmallBoxHullRestingOnLargeBoxGivesFourCorners) {
  ContactManifold m;
  ASSERT_EQ(
      CollideBoxHull(Shape::Box(Vec3(2, 0.5, 2)), Pose(Vec3::Zero()),
                     HullShape(BoxHull(Vec3(0.5, 0.5, 0.5))), Pose(Vec3(0.3, 0.99, -0.2)), 0.0, &m),
      4);
  for (double x : {-0.2, 0.8}) {
    for (double z : {-0.7, 0.3}) ExpectHasPoint(m, Vec3(x, 0.495, z), Vec3::UnitY(), -0.01);
  }
  ExpectBoxHullMatchesBoxBox(Vec3(2, 0.5, 2), Pose(Vec3::Zero()), Vec3(0.5, 0.5, 0.5),
                             Pose(Vec3(0.3, 0.99, -0.2)), 0.0, 4);
  // The large box as the hull, below the small box: B's face is the reference.
  ExpectBoxHullMatchesBoxBox(Vec3(0.5, 0.5, 0.5), Pose(Vec3(0.3, 0.99, -0.2)), Vec3(2, 0.5, 2),
                             Pose(Vec3::Zero()), 0.0, 4);
}

TEST(BoxHullTest, YawedAndTiltedMatchBoxBox) {
  ExpectBoxHullMatchesBoxBox(Vec3(2, 0.5, 2), Pose(Vec3::Zero()), Vec3(0.5, 0.5, 0.5),
                             Pose(Vec3(0.3, 0.99, -0.2), AxisAngleDeg(Vec3::UnitY(), 30)), 0.0, 4);
  const double s = std::sin(5 * std::numbers::pi / 180), c = std::cos(5 * std::numbers::pi / 180);
  const Transform tilted =
      Pose(Vec3(0, 0.5 + 0.5 * s + 0.5 * c - 0.01, 0), AxisAngleDeg(Vec3::UnitZ(), 5));
  ExpectBoxHullMatchesBoxBox(Vec3(2, 0.5, 2), Pose(Vec3::Zero()), Vec3(0.5, 0.5, 0.5), tilted, 0.02,
                             2);
  ExpectBoxHullMatchesBoxBox(Vec3(2, 0.5, 2), Pose(Vec3::Zero()), Vec3(0.5, 0.5, 0.5), tilted, 0.2,
                             4);
}

TEST(BoxHullTest, EdgeOnEdgeCrossingGivesOnePoint) {
  // A's top is an edge along Z at y = sqrt 2; B's bottom an edge along X, 0.02 lower.
  const Transform pa = Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45));
  const Transform pb = Pose(Vec3(0, 2 * kSqrt2 - 0.02, 0), AxisAngleDeg(Vec3::UnitX(), 45));
  ContactManifold m;
  ASSERT_EQ(
      CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), pa, HullShape(BoxHull(Vec3(1, 1, 1))), pb, 0.0, &m),
      1);
  ExpectHasPoint(m, Vec3(0, kSqrt2 - 0.01, 0), Vec3::UnitY(), -0.02);
  ExpectBoxHullMatchesBoxBox(Vec3(1, 1, 1), pa, Vec3(1, 1, 1), pb, 0.0, 1);
}

TEST(BoxHullTest, EdgeOnEdgeApartWithinMargin) {
  const Transform pa = Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45));
  const Transform pb = Pose(Vec3(0, 2 * kSqrt2 + 0.03, 0), AxisAngleDeg(Vec3::UnitX(), 45));
  ContactManifold m;
  ASSERT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), pa, HullShape(BoxHull(Vec3(1, 1, 1))), pb,
                           0.05, &m),
            1);
  ExpectHasPoint(m, Vec3(0, kSqrt2 + 0.015, 0), Vec3::UnitY(), 0.03);
  EXPECT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), pa, HullShape(BoxHull(Vec3(1, 1, 1))), pb,
                           0.02, &m),
            0);
  ExpectBoxHullMatchesBoxBox(Vec3(1, 1, 1), pa, Vec3(1, 1, 1), pb, 0.05, 1);
}

TEST(BoxHullTest, FaceApartWithinMargin) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3::Zero()),
                           HullShape(BoxHull(Vec3(1, 1, 1))), Pose(Vec3(0, 0, 2.03)), 0.05, &m),
            4);
  for (double x : {-1.0, 1.0}) {
    for (double y : {-1.0, 1.0}) ExpectHasPoint(m, Vec3(x, y, 1.015), Vec3::UnitZ(), 0.03);
  }
  EXPECT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3::Zero()),
                           HullShape(BoxHull(Vec3(1, 1, 1))), Pose(Vec3(0, 0, 2.03)), 0.02, &m),
            0);
}

TEST(BoxHullTest, CornerToCornerUsesExactGap) {
  // Every face axis separates by 0.05; the real gap is corner to corner, sqrt 3 * 0.05.
  const Shape hull = HullShape(BoxHull(Vec3(1, 1, 1)));
  ContactManifold m;
  ASSERT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3::Zero()), hull,
                           Pose(Vec3(2.05, 2.05, 2.05)), 0.1, &m),
            1);
  ExpectHasPoint(m, Vec3(1.025, 1.025, 1.025), kU, kSqrt3 * 0.05, 1e-12);
  EXPECT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3::Zero()), hull,
                           Pose(Vec3(2.05, 2.05, 2.05)), 0.08, &m),
            0);
}

// Two ridges (both cubes turned 45 degrees about Z) parallel along Z, 0.03 apart: the best
// face axis, (1, 1, 0) / sqrt 2, separates by only 0.03 / sqrt 2, and the parallel edges
// give no edge axis, so the gap must come from the exact distance.
TEST(BoxHullTest, ParallelRidgesGetExactGapNotTheAxisBound) {
  const Quat yaw = AxisAngleDeg(Vec3::UnitZ(), 45);
  const Transform pa = Pose(Vec3::Zero(), yaw);
  const Transform pb = Pose(Vec3(0, 2 * kSqrt2 + 0.03, 0.5), yaw);
  const Shape hull = HullShape(BoxHull(Vec3(1, 1, 1)));
  ContactManifold m;
  ASSERT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), pa, hull, pb, 0.05, &m), 1);
  EXPECT_NEAR(m.points[0].distance, 0.03, 1e-12);
  EXPECT_LT((m.points[0].normal - Vec3::UnitY()).norm(), 1e-9);
  // On the ridges' common stretch z in [-0.5, 1], midway between them.
  EXPECT_NEAR(m.points[0].position.x(), 0.0, 1e-9);
  EXPECT_NEAR(m.points[0].position.y(), kSqrt2 + 0.015, 1e-9);
  EXPECT_GE(m.points[0].position.z(), -0.5 - 1e-9);
  EXPECT_LE(m.points[0].position.z(), 1.0 + 1e-9);
  // A margin above the axis bound (0.0212) but below the gap: nothing.
  EXPECT_EQ(CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), pa, hull, pb, 0.025, &m), 0);
  ContactManifold via_box;
  ASSERT_EQ(
      CollideBoxBox(Shape::Box(Vec3(1, 1, 1)), pa, Shape::Box(Vec3(1, 1, 1)), pb, 0.05, &via_box),
      1);
  EXPECT_NEAR(via_box.points[0].distance, 0.03, 1e-12);
}

TEST(BoxHullTest, CoincidentBoxesAreFinite) {
  const Transform p = Pose(Vec3(1, 2, 3), AxisAngleDeg(Vec3(1, 1, 0), 33));
  ExpectBoxHullMatchesBoxBox(Vec3(1, 1, 1), p, Vec3(1, 1, 1), p, 0.0, 4);
}

// Random poses near contact: the same manifold as box-box (same points, normals, depths).
// Where a clipped face has more than four points, reduction may meet exactly equal triangle
// areas that rounding breaks differently in the two candidate orders; then the count, the
// normal and the deepest point must still agree, and such trials must be rare.
TEST(BoxHullTest, RandomPosesMatchBoxBox) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vec3 half_a(0.6, 0.4, 0.8);
  const Vec3 half_b(0.5, 0.3, 0.2);
  int contacts = 0;
  int differing = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Transform pa =
        Pose(Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Transform pb = Pose(pa.position + 1.3 * Vec3(u(rng), u(rng), u(rng)),
                              Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    ContactManifold via_hull, via_box;
    CollideBoxHull(Shape::Box(half_a), pa, HullShape(BoxHull(half_b)), pb, 0.1, &via_hull);
    CollideBoxBox(Shape::Box(half_a), pa, Shape::Box(half_b), pb, 0.1, &via_box);
    SCOPED_TRACE(trial);
    ExpectWellFormed(via_hull, 0.1);
    ASSERT_EQ(via_hull.count, via_box.count);
    contacts += via_box.count;
    bool same = true;
    for (int i = 0; i < via_box.count; ++i) {
      const ContactPoint* p = collision_testing::NearestPoint(via_hull, via_box.points[i].position);
      same = same && (p->position - via_box.points[i].position).norm() < 1e-9 &&
             std::abs(p->distance - via_box.points[i].distance) < 1e-9;
      EXPECT_LT((via_hull.points[i].normal - via_box.points[0].normal).norm(), 1e-9);
    }
    if (same || via_box.count == 0) continue;
    ++differing;
    ExpectHasPoint(via_hull, via_box.points[0].position, via_box.points[0].normal,
                   via_box.points[0].distance);
    EXPECT_NEAR(collision_testing::MinDistance(via_hull),
                collision_testing::MinDistance(via_box), 1e-9);
  }
  EXPECT_GT(contacts, 200);
  EXPECT_LE(differing, 4);
}

// ---- hull-hull ----

// Octahedron (A, vertices at +-1) with a tetrahedron of scale s (B) whose face opposite
// s (1, 1, 1) sinks 0.01 into the octahedron's (+, +, +) face; both faces are normal to kU.
Transform TetraOnOctahedron(double s, double yaw_degrees = 0.0) {
  const double t = (1.0 + s) / kSqrt3 - 0.01;  // tetrahedron centre along kU
  return Pose(t * kU, AxisAngleDeg(kU, yaw_degrees));
}

TEST(HullHullTest, TetrahedronOnOctahedronFaceGivesItsThreeCorners) {
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.25));
  const Transform pb = TetraOnOctahedron(0.25);
  ContactManifold m;
  ASSERT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, pb, 0.0, &m), 3);
  // The tetrahedron's lower face corners, 0.01 below the octahedron's face plane; each
  // point is midway to its projection on the plane.
  for (const Vec3& corner : {Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)}) {
    ExpectHasPoint(m, pb.position + 0.25 * corner + 0.005 * kU, kU, -0.01, 1e-12);
  }
  // Swapped (through the table, which calls hull-hull with the tetrahedron first): the
  // tetrahedron's face is now the reference, the same points, normals reversed.
  ContactManifold swapped;
  ASSERT_EQ(Collide(tet, pb, oct, Pose(Vec3::Zero()), 0.0, &swapped), 3);
  for (const Vec3& corner : {Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)}) {
    ExpectHasPoint(swapped, pb.position + 0.25 * corner + 0.005 * kU, -kU, -0.01, 1e-12);
  }
}

TEST(HullHullTest, HexagonOverlapIsReducedToFourPoints) {
  // A tetrahedron of scale 0.5 has a lower face the size of the octahedron's face; turned
  // 60 degrees about the common normal the two triangles overlap in a regular hexagon whose
  // corners are the octahedron face's edge trisection points.
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.5));
  ContactManifold m;
  ASSERT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, TetraOnOctahedron(0.5, 60), 0.0, &m), 4);
  std::vector<Vec3> hexagon;
  for (const Vec3& p :
       {Vec3(2, 1, 0), Vec3(1, 2, 0), Vec3(0, 2, 1), Vec3(0, 1, 2), Vec3(1, 0, 2), Vec3(2, 0, 1)}) {
    hexagon.push_back(p / 3.0 - 0.005 * kU);
  }
  for (int i = 0; i < m.count; ++i) {
    EXPECT_NEAR(m.points[i].distance, -0.01, 1e-12);
    EXPECT_LT((m.points[i].normal - kU).norm(), 1e-12);
    double nearest = 1e9;
    for (const Vec3& h : hexagon) nearest = std::min(nearest, (m.points[i].position - h).norm());
    EXPECT_LT(nearest, 1e-9) << m.points[i].position.transpose();
  }
  // Spread out: no two kept points coincide, and two are opposite corners (distance 2/3 * sqrt 2,
  // the hexagon's long diagonal).
  double widest = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      const double d = (m.points[i].position - m.points[j].position).norm();
      EXPECT_GT(d, 0.1);
      widest = std::max(widest, d);
    }
  }
  EXPECT_NEAR(widest, 2.0 * kSqrt2 / 3.0, 1e-9);
}

TEST(HullHullTest, ApartWithinMarginGivesTheGap) {
  // The tetrahedron raised 0.04 above touching: three points at +0.03.
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.25));
  Transform pb = TetraOnOctahedron(0.25);
  pb.position += 0.04 * kU;
  ContactManifold m;
  ASSERT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, pb, 0.05, &m), 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(m.points[i].distance, 0.03, 1e-12);
  EXPECT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, pb, 0.03, &m), 0);
}

TEST(HullHullTest, VertexOnVertexApartUsesExactGap) {
  // Octahedron tip (0, 1, 0) under a tetrahedron standing on its vertex s (-1, -1, 1)...
  // turned so that vertex points straight down: vertex to vertex, gap 0.05 along +Y.
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.5));
  const Quat down = Quat::FromTwoVectors(Vec3(-1, -1, 1).normalized(), -Vec3::UnitY());
  const Transform pb = Pose(Vec3(0, 1.05 + 0.5 * kSqrt3, 0), down);
  ContactManifold m;
  ASSERT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, pb, 0.1, &m), 1);
  ExpectHasPoint(m, Vec3(0, 1.025, 0), Vec3::UnitY(), 0.05, 1e-12);
  EXPECT_EQ(CollideHullHull(oct, Pose(Vec3::Zero()), tet, pb, 0.04, &m), 0);
}

// Random apart poses: the nearest reported point is the exact gap (vertex-face or edge-edge,
// by brute force), and nothing is reported beyond the margin.
TEST(HullHullTest, RandomApartPosesGetTheExactGap) {
  const auto tet = TetrahedronHull(0.6);
  const auto prism = PrismHull(0.7, 0.9, 0.5);
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Draws in a fixed order (function arguments are unsequenced).
  const auto vec = [&] {
    Vec3 v;
    for (int k = 0; k < 3; ++k) v[k] = u(rng);
    return v;
  };
  const auto rotation = [&] {
    double q[4];
    for (double& c : q) c = u(rng);
    return Quat(q[0], q[1], q[2], q[3]).normalized();
  };
  int contacts = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Vec3 at = vec();
    const Quat qa = rotation();
    const Vec3 offset = 1.6 * vec();
    const Quat qb = rotation();
    const Transform pa = Pose(at, qa);
    const Transform pb = Pose(at + offset, qb);
    if (!Disjoint(*tet, pa, *prism, pb)) continue;
    const double gap = DisjointHullDistance(*tet, pa, *prism, pb);
    if (std::abs(gap - 0.25) < 1e-6) continue;  // too close to the margin to call
    ContactManifold m;
    CollideHullHull(HullShape(tet), pa, HullShape(prism), pb, 0.25, &m);
    SCOPED_TRACE(trial);
    ExpectWellFormed(m, 0.25);
    ASSERT_EQ(m.count > 0, gap < 0.25) << "gap " << gap;
    if (m.count == 0) continue;
    ++contacts;
    EXPECT_NEAR(collision_testing::MinDistance(m), gap, 1e-9);
  }
  EXPECT_GT(contacts, 30);
}

// The resting configuration carried by one rigid motion: the same points, moved.
TEST(HullHullTest, RotatedPoseMatchesAxisAligned) {
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.25));
  const Transform motion = Pose(Vec3(-4, 1, 2), AxisAngleDeg(Vec3(-1, 2, 0.5), 70));
  const Transform pb = TetraOnOctahedron(0.25);
  ContactManifold m;
  ASSERT_EQ(CollideHullHull(oct, motion, tet, motion * pb, 0.0, &m), 3);
  for (const Vec3& corner : {Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)}) {
    ExpectHasPoint(m, motion.Apply(pb.position + 0.25 * corner + 0.005 * kU), motion.Rotate(kU),
                   -0.01, 1e-9);
  }
}

TEST(HullHullTest, IsDeterministic) {
  const Shape oct = HullShape(OctahedronHull(1.0));
  const Shape tet = HullShape(TetrahedronHull(0.5));
  const Transform pa = Pose(Vec3(0.1, -0.2, 0.3), AxisAngleDeg(Vec3(1, 0, 2), 17));
  const Transform pb = pa * TetraOnOctahedron(0.5, 60);
  ContactManifold first, other, second;
  ASSERT_EQ(CollideHullHull(oct, pa, tet, pb, 0.0, &first), 4);
  // Other calls in between reuse the scratch buffers with other sizes.
  CollideHullHull(HullShape(PrismHull(1, 1, 2)), Pose(Vec3::Zero()), oct, Pose(Vec3(0, 1.5, 0)),
                  0.1, &other);
  CollideBoxHull(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3::Zero()), tet, Pose(Vec3(0, 1.2, 0)), 0.1,
                 &other);
  ASSERT_EQ(CollideHullHull(oct, pa, tet, pb, 0.0, &second), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(first.points[i].position, second.points[i].position);
    EXPECT_EQ(first.points[i].normal, second.points[i].normal);
    EXPECT_EQ(first.points[i].distance, second.points[i].distance);
  }
}

// ---- capsule-hull ----

const Shape kCapsule = Shape::Capsule(0.25, 0.75);

TEST(CapsuleHullTest, CapsuleFlatOnBoxHullFaceGivesTwoPoints) {
  // As box-capsule's slab test, the capsule first: normals point down into the hull.
  const Shape slab = HullShape(BoxHull(Vec3(2, 0.5, 1)));
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(0.2, 0.74, 0.1), AlongX()), slab,
                               Pose(Vec3::Zero()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(-0.55, 0.495, 0.1), -Vec3::UnitY(), -0.01);
  ExpectHasPoint(m, Vec3(0.95, 0.495, 0.1), -Vec3::UnitY(), -0.01);
  // Overhanging the edge: clipped to the face.
  ASSERT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(1.8, 0.74, 0), AlongX()), slab,
                               Pose(Vec3::Zero()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(1.05, 0.495, 0), -Vec3::UnitY(), -0.01);
  ExpectHasPoint(m, Vec3(2.0, 0.495, 0), -Vec3::UnitY(), -0.01);
}

TEST(CapsuleHullTest, CapsuleAlongPrismSlopeGivesTwoPoints) {
  // Prism slope x + y = 1 (normal (1, 1, 0) / sqrt 2); the capsule along Z, its surface 0.02
  // off the slope above the point (0.5, 0.5).
  const Shape prism = HullShape(PrismHull(1, 1, 2));
  const Vec3 n = Vec3(1, 1, 0) / kSqrt2;
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(0.5, 0.5, 0) + 0.27 * n, AlongZ()), prism,
                               Pose(Vec3::Zero()), 0.05, &m),
            2);
  for (double z : {-0.75, 0.75}) ExpectHasPoint(m, Vec3(0.5, 0.5, z) + 0.01 * n, -n, 0.02, 1e-12);
  EXPECT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(0.5, 0.5, 0) + 0.27 * n, AlongZ()), prism,
                               Pose(Vec3::Zero()), 0.019, &m),
            0);
}

TEST(CapsuleHullTest, CapsuleCrossingRidgeGivesOnePoint) {
  // Prism ridge along Z at (0, 1); the capsule along X, 0.03 above it.
  const Shape prism = HullShape(PrismHull(1, 1, 2));
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(0, 1.28, 0.3), AlongX()), prism,
                               Pose(Vec3::Zero()), 0.05, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 1.015, 0.3), -Vec3::UnitY(), 0.03, 1e-12);
}

TEST(CapsuleHullTest, SegmentThroughRidgeIsPushedOutAcrossIt) {
  // The segment runs 0.05 below the ridge, inside the prism: the ridge (edge axis, depth
  // 0.05 + radius) beats both slopes (0.8 / sqrt 2 deep).
  const Shape prism = HullShape(PrismHull(1, 1, 2));
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleHull(kCapsule, Pose(Vec3(0, 0.95, 0.3), AlongX()), prism,
                               Pose(Vec3::Zero()), 0.0, &m),
            1);
  // Capsule surface point (0, 0.7, 0.3), ridge point (0, 1, 0.3).
  ExpectHasPoint(m, Vec3(0, 0.85, 0.3), -Vec3::UnitY(), -0.3, 1e-12);
}

TEST(CapsuleHullTest, AgreesWithBoxCapsuleOnBoxHull) {
  const Vec3 half(0.6, 0.4, 0.8);
  const Shape hull = HullShape(BoxHull(half));
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int contacts = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Transform pb = Pose(Vec3(0.1, -0.2, 0.3), AxisAngleDeg(Vec3(1, 2, 3), 40));
    const Transform pa = Pose(pb.position + 1.2 * Vec3(u(rng), u(rng), u(rng)),
                              Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Shape capsule = Shape::Capsule(0.2, 0.5);
    ContactManifold via_hull, via_box;
    CollideCapsuleHull(capsule, pa, hull, pb, 0.05, &via_hull);
    CollideBoxCapsule(Shape::Box(half), pb, capsule, pa, 0.05, &via_box);
    for (int i = 0; i < via_box.count; ++i) via_box.points[i].normal *= -1.0;
    SCOPED_TRACE(trial);
    ExpectWellFormed(via_hull, 0.05);
    ExpectSameManifold(via_hull, via_box, 1e-9);
    contacts += via_box.count;
  }
  EXPECT_GT(contacts, 50);
}

// ---- hull-plane ----

const Shape kPlane = Shape::Plane();

TEST(HullPlaneTest, BoxHullRestingGivesFourCorners) {
  const Shape cube = HullShape(BoxHull(Vec3(0.5, 0.5, 0.5)));
  ContactManifold m;
  ASSERT_EQ(
      CollideHullPlane(cube, Pose(Vec3(0.3, 0.49, -0.2)), kPlane, Pose(Vec3::Zero()), 0.0, &m), 4);
  for (double x : {-0.2, 0.8}) {
    for (double z : {-0.7, 0.3}) ExpectHasPoint(m, Vec3(x, -0.005, z), -Vec3::UnitY(), -0.01);
  }
  ContactManifold via_box;
  CollideBoxPlane(Shape::Box(Vec3(0.5, 0.5, 0.5)), Pose(Vec3(0.3, 0.49, -0.2)), kPlane,
                  Pose(Vec3::Zero()), 0.0, &via_box);
  ExpectSameManifold(m, via_box);
}

TEST(HullPlaneTest, TetrahedronStandingOnAFaceGivesThreePoints) {
  // The face opposite (1, 1, 1) turned down: its corners lie 1 / sqrt 3 below the centre and
  // 2 sqrt 6 / 3 from the vertical through it; the apex is sqrt 3 above.
  const Quat q = Quat::FromTwoVectors(-kU, -Vec3::UnitY());
  const Vec3 centre(1, 1.0 / kSqrt3 - 0.01, 2);
  ContactManifold m;
  ASSERT_EQ(CollideHullPlane(kTetra, Pose(centre, q), kPlane, Pose(Vec3::Zero()), 0.5, &m), 3);
  for (int i = 0; i < 3; ++i) {
    const ContactPoint& p = m.points[i];
    EXPECT_NEAR(p.distance, -0.01, 1e-12);
    EXPECT_LT((p.normal + Vec3::UnitY()).norm(), 1e-12);
    EXPECT_NEAR(p.position.y(), -0.005, 1e-12);
    EXPECT_NEAR(std::hypot(p.position.x() - 1, p.position.z() - 2), 2 * std::sqrt(6.0) / 3, 1e-12);
  }
}

TEST(HullPlaneTest, TetrahedronOnItsApexGivesOnePoint) {
  const Quat q = Quat::FromTwoVectors(kU, -Vec3::UnitY());
  ContactManifold m;
  ASSERT_EQ(CollideHullPlane(kTetra, Pose(Vec3(0, kSqrt3 + 0.02, 0), q), kPlane, Pose(Vec3::Zero()),
                             0.05, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 0.01, 0), -Vec3::UnitY(), 0.02, 1e-12);
  EXPECT_EQ(CollideHullPlane(kTetra, Pose(Vec3(0, kSqrt3 + 0.02, 0), q), kPlane, Pose(Vec3::Zero()),
                             0.02, &m),
            0);
}

TEST(HullPlaneTest, TiltedBoxHullTouchesWithOneEdge) {
  // Tilted 5 degrees about Z: only its two lower corners are within a small margin.
  const Shape cube = HullShape(BoxHull(Vec3(0.5, 0.5, 0.5)));
  const double s = std::sin(5 * std::numbers::pi / 180), c = std::cos(5 * std::numbers::pi / 180);
  const Transform pose = Pose(Vec3(0, 0.5 * s + 0.5 * c - 0.01, 0), AxisAngleDeg(Vec3::UnitZ(), 5));
  ContactManifold m;
  ASSERT_EQ(CollideHullPlane(cube, pose, kPlane, Pose(Vec3::Zero()), 0.02, &m), 2);
  for (double z : {-0.5, 0.5}) {
    const Vec3 corner = pose.Apply(Vec3(-0.5, -0.5, z));
    ExpectHasPoint(m, corner + Vec3(0, 0.005, 0), -Vec3::UnitY(), -0.01, 1e-12);
  }
  EXPECT_EQ(CollideHullPlane(cube, pose, kPlane, Pose(Vec3::Zero()), 0.2, &m), 4);
}

TEST(HullPlaneTest, TiltedPlaneUsesItsNormal) {
  // The plane turned 30 degrees about X; the cube resting on it in the plane's frame.
  const Quat tilt = AxisAngleDeg(Vec3::UnitX(), 30);
  const Transform plane_pose = Pose(Vec3(1, 2, 3), tilt);
  const Shape cube = HullShape(BoxHull(Vec3(0.5, 0.5, 0.5)));
  ContactManifold m;
  ASSERT_EQ(
      CollideHullPlane(cube, plane_pose * Pose(Vec3(0, 0.49, 0)), kPlane, plane_pose, 0.0, &m), 4);
  for (double x : {-0.5, 0.5}) {
    for (double z : {-0.5, 0.5}) {
      ExpectHasPoint(m, plane_pose.Apply(Vec3(x, -0.005, z)), -(tilt * Vec3::UnitY()), -0.01,
                     1e-12);
    }
  }
}

TEST(HullPlaneTest, PrismOnItsBottomGivesItsFourCorners) {
  // A prism lying on its rectangular bottom; the margin reaches nothing else.
  const Shape prism = HullShape(PrismHull(1, 1, 2));
  ContactManifold m;
  ASSERT_EQ(CollideHullPlane(prism, Pose(Vec3(0, -0.01, 0)), kPlane, Pose(Vec3::Zero()), 0.3, &m),
            4);
  for (double x : {-1.0, 1.0}) {
    for (double z : {-2.0, 2.0}) ExpectHasPoint(m, Vec3(x, -0.005, z), -Vec3::UnitY(), -0.01);
  }
}

TEST(HullPlaneTest, HexagonalFaceIsReducedToFourSpreadCorners) {
  // A hexagonal prism (unit circumradius, corners at k * 60 degrees) lying on a hexagon.
  std::vector<Vec3> vertices;
  for (double y : {0.0, 1.0}) {
    for (int k = 0; k < 6; ++k) {
      const double angle = k * std::numbers::pi / 3;
      vertices.emplace_back(std::cos(angle), y, std::sin(angle));
    }
  }
  std::vector<std::vector<int>> loops = {{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}};
  for (int k = 0; k < 6; ++k) loops.push_back({k, (k + 1) % 6, 6 + (k + 1) % 6, 6 + k});
  const Shape hexagonal = HullShape(hull_fixtures::MakeHull(vertices, loops));
  ContactManifold m;
  ASSERT_EQ(
      CollideHullPlane(hexagonal, Pose(Vec3(0, -0.01, 0)), kPlane, Pose(Vec3::Zero()), 0.0, &m), 4);
  ExpectWellFormed(m, 0.0);
  double widest = 0.0;
  for (int i = 0; i < 4; ++i) {
    const Vec3& p = m.points[i].position;
    EXPECT_NEAR(m.points[i].distance, -0.01, 1e-12);
    EXPECT_NEAR(p.y(), -0.005, 1e-12);
    EXPECT_NEAR(std::hypot(p.x(), p.z()), 1.0, 1e-12);  // a hexagon corner
    for (int j = i + 1; j < 4; ++j) {
      const double d = (p - m.points[j].position).norm();
      EXPECT_GT(d, 0.9);  // no two neighbours closer than a side (1)
      widest = std::max(widest, d);
    }
  }
  EXPECT_NEAR(widest, 2.0, 1e-12);  // two opposite corners kept
}

// ---- through the table ----

// Every pair with a hull, both argument orders: the same points, normals flipped.
TEST(HullNarrowphaseTest, SwappedArgumentsFlipNormals) {
  const Shape hull = HullShape(PrismHull(0.6, 0.8, 0.5));
  const std::vector<Shape> others = {Shape::Sphere(0.5), Shape::Box(Vec3(0.6, 0.4, 0.8)),
                                     Shape::Capsule(0.3, 0.7), Shape::Plane(), kTetra};
  const Transform ph = Pose(Vec3(0.25, 0.0, -0.05), AxisAngleDeg(Vec3(1, 0, 1), 20));
  const Transform po = Pose(Vec3(0.3, 0.1, -0.1), AxisAngleDeg(Vec3(0, 1, 1), 35));
  for (const Shape& other : others) {
    ContactManifold ab, ba;
    const int n = Collide(other, po, hull, ph, 0.05, &ab);
    ASSERT_EQ(Collide(hull, ph, other, po, 0.05, &ba), n);
    EXPECT_GT(n, 0) << static_cast<int>(other.type);
    ExpectWellFormed(ab, 0.05);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(ab.points[i].normal, -ba.points[i].normal);
      EXPECT_EQ(ab.points[i].position, ba.points[i].position);
      EXPECT_EQ(ab.points[i].distance, ba.points[i].distance);
    }
  }
}

// Normals point from A to B: moving B along them separates the shapes.
TEST(HullNarrowphaseTest, NormalsPointFromAToB) {
  const Shape hull = HullShape(OctahedronHull(0.7));
  const std::vector<Shape> others = {Shape::Sphere(0.5), Shape::Box(Vec3(0.6, 0.4, 0.8)),
                                     Shape::Capsule(0.3, 0.7), kTetra};
  const Transform ph = Pose(Vec3(0.2, 0.9, -0.1), AxisAngleDeg(Vec3(1, 1, 0), 25));
  for (const Shape& other : others) {
    ContactManifold m, moved;
    ASSERT_GT(Collide(other, Pose(Vec3::Zero()), hull, ph, 0.0, &m), 0);
    Transform apart = ph;
    apart.position += 0.05 * m.points[0].normal;
    const double before = collision_testing::MinDistance(m);
    Collide(other, Pose(Vec3::Zero()), hull, apart, 1.0, &moved);
    ASSERT_GT(moved.count, 0);
    EXPECT_GT(collision_testing::MinDistance(moved), before + 0.01) << static_cast<int>(other.type);
  }
}

}  // namespace
}  // namespace ligature
