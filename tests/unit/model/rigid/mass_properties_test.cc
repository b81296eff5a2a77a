#include "server/model/rigid/mass_properties.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"

namespace ligature {
namespace {

constexpr double kPi = std::numbers::pi;

Material Density(double density) {
  Material m;
  m.density = density;
  return m;
}

Material Mass(double mass) {
  Material m;
  m.density = 1000.0;
  m.mass = mass;
  return m;
}

void ExpectVecNear(const Vec3& actual, const Vec3& expected, double rel_tol) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(actual[i], expected[i], rel_tol * std::abs(expected[i]))
        << "component " << i << ": " << actual.transpose() << " vs " << expected.transpose();
  }
}

// Mass and principal inertia of a solid capsule (radius r, segment half length l, axis Y)
// by slicing it into thin discs along the axis and integrating numerically with Simpson's
// rule: a disc of radius rho and mass dm contributes dm rho^2 / 2 about the axis and
// dm (rho^2 / 4 + y^2) about a transverse axis through the centre. Independent of the
// hemisphere/parallel-axis decomposition used by the engine.
MassProperties CapsuleBySlicing(double r, double l, double density) {
  double mass = 0.0, axial = 0.0, transverse = 0.0;
  // Each piece (cap, cylinder, cap) has a polynomial integrand, so Simpson is accurate.
  const double pieces[3][2] = {{-l - r, -l}, {-l, l}, {l, l + r}};
  for (const auto& piece : pieces) {
    const int n = 2000;  // even
    const double dy = (piece[1] - piece[0]) / n;
    if (dy <= 0.0) continue;
    for (int i = 0; i <= n; ++i) {
      const double y = piece[0] + i * dy;
      const double over = std::max(0.0, std::abs(y) - l);
      const double rho2 = std::max(0.0, r * r - over * over);
      const double w = ((i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0)) * dy / 3.0;
      const double dm = density * kPi * rho2;  // per unit length
      mass += w * dm;
      axial += w * dm * rho2 / 2.0;
      transverse += w * dm * (rho2 / 4.0 + y * y);
    }
  }
  MassProperties out;
  out.mass = mass;
  out.inertia = Vec3(transverse, axial, transverse);
  return out;
}

// Volumes against the textbook formulas.
TEST(ShapeVolumeTest, MatchesClosedForms) {
  EXPECT_NEAR(ShapeVolume(Shape::Sphere(0.5)), 4.0 / 3.0 * kPi * 0.125, 1e-12);
  EXPECT_NEAR(ShapeVolume(Shape::Box(Vec3(0.5, 1.0, 1.5))), 6.0, 1e-12);
  // Cylinder of length 2 plus a sphere of radius 0.3.
  EXPECT_NEAR(ShapeVolume(Shape::Capsule(0.3, 1.0)), kPi * 0.09 * 2.0 + 4.0 / 3.0 * kPi * 0.027,
              1e-12);
  EXPECT_EQ(ShapeVolume(Shape::Plane()), 0.0);
}

// Solid sphere: m = rho 4/3 pi r^3, I = 2/5 m r^2 about every axis.
TEST(MassPropertiesTest, SolidSphere) {
  const double r = 0.5, rho = 800.0;
  const MassProperties mp = ComputeMassProperties(Shape::Sphere(r), Density(rho));
  const double m = rho * 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_NEAR(mp.mass, m, 1e-9 * m);
  ExpectVecNear(mp.inertia, Vec3::Constant(0.4 * m * r * r), 1e-12);
}

// Solid box with edges a, b, c: I_x = m (b^2 + c^2) / 12 and so on.
TEST(MassPropertiesTest, SolidBox) {
  const MassProperties mp = ComputeMassProperties(Shape::Box(Vec3(0.5, 1.0, 1.5)), Density(1000.0));
  // Edges 1 x 2 x 3 m: 6 m^3 of water.
  EXPECT_NEAR(mp.mass, 6000.0, 1e-9);
  ExpectVecNear(mp.inertia, Vec3(6000.0 * 13.0 / 12.0, 6000.0 * 10.0 / 12.0, 6000.0 * 5.0 / 12.0),
                1e-12);
}

// A cube has the same moment about every axis: m s^2 / 6.
TEST(MassPropertiesTest, CubeIsIsotropic) {
  const MassProperties mp = ComputeMassProperties(Shape::Box(Vec3::Constant(0.2)), Density(500));
  const double m = 500.0 * 0.4 * 0.4 * 0.4;
  EXPECT_NEAR(mp.mass, m, 1e-12);
  ExpectVecNear(mp.inertia, Vec3::Constant(m * 0.16 / 6.0), 1e-12);
}

// Capsules of several proportions against slicing integration; the axial moment is the
// smaller one for a long capsule and the symmetry axis is local Y.
TEST(MassPropertiesTest, CapsuleMatchesSlicingIntegration) {
  const struct { double r, l; } cases[] = {{0.3, 1.0}, {0.5, 0.1}, {0.1, 2.0}, {1.0, 1.0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "r=" << c.r << " l=" << c.l);
    const MassProperties mp = ComputeMassProperties(Shape::Capsule(c.r, c.l), Density(1200.0));
    const MassProperties ref = CapsuleBySlicing(c.r, c.l, 1200.0);
    EXPECT_NEAR(mp.mass, ref.mass, 1e-8 * ref.mass);
    ExpectVecNear(mp.inertia, ref.inertia, 1e-7);
    EXPECT_DOUBLE_EQ(mp.inertia.x(), mp.inertia.z());
  }
  const MassProperties long_capsule =
      ComputeMassProperties(Shape::Capsule(0.1, 2.0), Density(1000.0));
  EXPECT_LT(long_capsule.inertia.y(), long_capsule.inertia.x());
}

// A capsule with no segment is a sphere.
TEST(MassPropertiesTest, CapsuleWithZeroLengthIsASphere) {
  const MassProperties cap = ComputeMassProperties(Shape::Capsule(0.4, 0.0), Density(700.0));
  const MassProperties sph = ComputeMassProperties(Shape::Sphere(0.4), Density(700.0));
  EXPECT_NEAR(cap.mass, sph.mass, 1e-12 * sph.mass);
  ExpectVecNear(cap.inertia, sph.inertia, 1e-12);
}

// material.mass > 0 sets the mass and scales the inertia in proportion; density is ignored.
TEST(MassPropertiesTest, MassOverrideScalesInertia) {
  const Shape shapes[] = {Shape::Sphere(0.5), Shape::Box(Vec3(0.1, 0.2, 0.3)),
                          Shape::Capsule(0.2, 0.6)};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(static_cast<int>(shape.type));
    const MassProperties by_density = ComputeMassProperties(shape, Density(1000.0));
    const MassProperties by_mass = ComputeMassProperties(shape, Mass(2.5));
    EXPECT_DOUBLE_EQ(by_mass.mass, 2.5);
    ExpectVecNear(by_mass.inertia, by_density.inertia * (2.5 / by_density.mass), 1e-12);
  }
  // Sphere of 2 kg, radius 0.5: I = 0.4 * 2 * 0.25.
  const MassProperties sphere = ComputeMassProperties(Shape::Sphere(0.5), Mass(2.0));
  ExpectVecNear(sphere.inertia, Vec3::Constant(0.2), 1e-12);
}

// Mass is linear in density.
TEST(MassPropertiesTest, MassProportionalToDensity) {
  const Shape box = Shape::Box(Vec3(0.3, 0.4, 0.5));
  const MassProperties light = ComputeMassProperties(box, Density(100.0));
  const MassProperties heavy = ComputeMassProperties(box, Density(300.0));
  EXPECT_NEAR(heavy.mass, 3.0 * light.mass, 1e-12);
  ExpectVecNear(heavy.inertia, 3.0 * light.inertia, 1e-12);
}

// Planes have no volume, hence no mass from density, and no inertia.
TEST(MassPropertiesTest, PlaneHasNone) {
  const MassProperties mp = ComputeMassProperties(Shape::Plane(), Density(1000.0));
  EXPECT_EQ(mp.mass, 0.0);
  EXPECT_TRUE(mp.inertia.isZero());
}

// ---------------------------------------------------------------------------------------
// ComputeCompoundMass: mass, centre and inertia tensor of several children, against the
// parallel-axis theorem worked by hand.

ChildShape Child(const Shape& shape, const Vec3& position,
                 const Quat& orientation = Quat::Identity()) {
  return {shape, Transform{position, orientation}};
}

void ExpectMatNear(const Mat3& actual, const Mat3& expected, double tol) {
  EXPECT_LT((actual - expected).cwiseAbs().maxCoeff(), tol) << "actual\n"
                                                            << actual << "\nexpected\n"
                                                            << expected;
}

// Two equal spheres at (+-d, 0, 0): the centre is the origin; about x only the spheres'
// own moments count, about y and z each adds m d^2. No products of inertia.
TEST(CompoundMassTest, TwoSpheresParallelAxis) {
  const double r = 0.2, d = 0.75, rho = 900.0;
  const double m = rho * 4.0 / 3.0 * kPi * r * r * r;
  const CompoundMass cm = ComputeCompoundMass(
      {Child(Shape::Sphere(r), Vec3(d, 0, 0)), Child(Shape::Sphere(r), Vec3(-d, 0, 0))},
      Density(rho));
  EXPECT_NEAR(cm.mass, 2.0 * m, 1e-12 * m);
  EXPECT_LT(cm.center.norm(), 1e-15);
  const double own = 0.4 * m * r * r;
  const double i_x = 2.0 * own;
  const double i_yz = 2.0 * (own + m * d * d);
  ExpectMatNear(cm.inertia, Vec3(i_x, i_yz, i_yz).asDiagonal().toDenseMatrix(), 1e-12 * i_yz);
}

// Unequal children: the centre is the mass-weighted mean of the children's centres, and
// the inertia about it picks up products of inertia from the diagonal offset.
TEST(CompoundMassTest, UnequalChildrenCentreAndProducts) {
  // 1 kg/m^3 so masses are volumes: a unit cube (1 kg) at the origin and a 2 x 1 x 1 box
  // (2 kg) at (3, 3, 0). Centre (2, 2, 0); offsets (-2, -2, 0) and (1, 1, 0).
  const CompoundMass cm =
      ComputeCompoundMass({Child(Shape::Box(Vec3(0.5, 0.5, 0.5)), Vec3::Zero()),
                           Child(Shape::Box(Vec3(1.0, 0.5, 0.5)), Vec3(3, 3, 0))},
                          Density(1.0));
  EXPECT_NEAR(cm.mass, 3.0, 1e-12);
  EXPECT_LT((cm.center - Vec3(2, 2, 0)).norm(), 1e-12);
  // Own moments: cube 1/6 each; box 2 (1 + 1, 4 + 1, 4 + 1) / 12.
  // Offsets: m (|d|^2 I - d d^T): cube d = (-2, -2, 0) -> [[4, -4, 0], [-4, 4, 0], [0, 0, 8]];
  // box d = (1, 1, 0), m = 2 -> [[2, -2, 0], [-2, 2, 0], [0, 0, 4]].
  Mat3 expected;
  expected << 1.0 / 6 + 4.0 / 12 + 4 + 2, -6, 0,  //
      -6, 1.0 / 6 + 10.0 / 12 + 4 + 2, 0,           //
      0, 0, 1.0 / 6 + 10.0 / 12 + 8 + 4;
  ExpectMatNear(cm.inertia, expected, 1e-12);
}

// A single box away from the body origin: the centre is the offset and the inertia is the
// box's own, whatever the offset.
TEST(CompoundMassTest, SingleOffsetBoxIsTheBox) {
  const Shape box = Shape::Box(Vec3(0.5, 1.0, 1.5));
  const Vec3 offset(1.25, -0.5, 3.0);
  const CompoundMass cm = ComputeCompoundMass({Child(box, offset)}, Density(1000.0));
  EXPECT_NEAR(cm.mass, 6000.0, 1e-9);
  EXPECT_LT((cm.center - offset).norm(), 1e-12);
  const Vec3 own(6000.0 * 13.0 / 12.0, 6000.0 * 10.0 / 12.0, 6000.0 * 5.0 / 12.0);
  ExpectMatNear(cm.inertia, own.asDiagonal().toDenseMatrix(), 1e-9);
}

// A child's orientation rotates its principal moments into the body axes: a box turned a
// quarter turn about z swaps its x and y moments; turned by another angle it gains a
// product of inertia R diag(I) R^T.
TEST(CompoundMassTest, RotatedChildRotatesInertia) {
  const Shape box = Shape::Box(Vec3(0.5, 1.0, 1.5));
  const Vec3 own(6000.0 * 13.0 / 12.0, 6000.0 * 10.0 / 12.0, 6000.0 * 5.0 / 12.0);
  const CompoundMass quarter = ComputeCompoundMass(
      {Child(box, Vec3(0, 1, 0), Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ())))},
      Density(1000.0));
  ExpectMatNear(quarter.inertia, Vec3(own.y(), own.x(), own.z()).asDiagonal().toDenseMatrix(),
                1e-9);
  // 30 degrees about z: I_xy = (I_x - I_y) sin(30) cos(30).
  const double a = kPi / 6;
  const CompoundMass tilted = ComputeCompoundMass(
      {Child(box, Vec3::Zero(), Quat(Eigen::AngleAxisd(a, Vec3::UnitZ())))}, Density(1000.0));
  const double c = std::cos(a), s = std::sin(a);
  Mat3 expected;
  expected << own.x() * c * c + own.y() * s * s, (own.x() - own.y()) * s * c, 0,  //
      (own.x() - own.y()) * s * c, own.x() * s * s + own.y() * c * c, 0,          //
      0, 0, own.z();
  ExpectMatNear(tilted.inertia, expected, 1e-9);
}

// material.mass > 0 sets the total mass and scales the whole tensor in proportion; the
// centre does not move (one material for all children).
TEST(CompoundMassTest, MassOverrideScalesInertia) {
  const std::vector<ChildShape> children = {
      Child(Shape::Sphere(0.3), Vec3(0.5, 0, 0)),
      Child(Shape::Box(Vec3(0.1, 0.2, 0.3)), Vec3(-0.2, 0.4, 0.1),
            Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))),
      Child(Shape::Capsule(0.1, 0.5), Vec3(0, -0.3, 0.2))};
  const CompoundMass by_density = ComputeCompoundMass(children, Density(1000.0));
  const CompoundMass by_mass = ComputeCompoundMass(children, Mass(7.0));
  EXPECT_DOUBLE_EQ(by_mass.mass, 7.0);
  EXPECT_LT((by_mass.center - by_density.center).norm(), 1e-15);
  ExpectMatNear(by_mass.inertia, by_density.inertia * (7.0 / by_density.mass),
                1e-12 * by_density.inertia.norm());
  // Two spheres of 0.5 kg each (1 kg in all), radius 0.5, at (+-1, 0, 0):
  // I_x = 2 (0.4 * 0.5 * 0.25), I_y = 2 (0.4 * 0.5 * 0.25 + 0.5 * 1^2).
  const CompoundMass pair = ComputeCompoundMass(
      {Child(Shape::Sphere(0.5), Vec3(1, 0, 0)), Child(Shape::Sphere(0.5), Vec3(-1, 0, 0))},
      Mass(1.0));
  EXPECT_DOUBLE_EQ(pair.mass, 1.0);
  EXPECT_NEAR(pair.inertia(0, 0), 2.0 * 0.4 * 0.5 * 0.25, 1e-12);
  EXPECT_NEAR(pair.inertia(1, 1), 2.0 * (0.4 * 0.5 * 0.25 + 0.5), 1e-12);
}

// One child at the origin matches the single-shape computation.
TEST(CompoundMassTest, SingleChildAtOriginMatchesShape) {
  const Shape cap = Shape::Capsule(0.3, 1.0);
  const MassProperties mp = ComputeMassProperties(cap, Density(1200.0));
  const CompoundMass cm = ComputeCompoundMass({Child(cap, Vec3::Zero())}, Density(1200.0));
  EXPECT_NEAR(cm.mass, mp.mass, 1e-12 * mp.mass);
  EXPECT_TRUE(cm.center.isZero());
  ExpectMatNear(cm.inertia, mp.inertia.asDiagonal().toDenseMatrix(), 1e-12 * mp.inertia.norm());
}

// A hull child is placed by its own centroid and carries its full tensor: a box whose
// points sit off the hull's origin, in a child frame rotated about z, has the mass, centre
// and inertia of the same box as a box child placed where the points put it.
TEST(CompoundMassTest, HullChildMatchesTheSameBox) {
  const Vec3 half(0.1, 0.2, 0.3), offset(0.5, -0.2, 0.1);
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    points.push_back(offset + Vec3(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(),
                                   k & 4 ? half.z() : -half.z()));
  }
  auto hull = BuildConvexHull(points, {});
  ASSERT_TRUE(hull.ok());
  const Quat turn(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
  const Vec3 at(1.0, 2.0, 3.0);
  ChildShape hull_child{Shape::Hull(*hull), Transform{at, turn}};
  ChildShape box_child{Shape::Box(half), Transform{at + turn * offset, turn}};
  const CompoundMass a = ComputeCompoundMass({hull_child}, Density(700.0));
  const CompoundMass b = ComputeCompoundMass({box_child}, Density(700.0));
  EXPECT_NEAR(a.mass, 700.0 * 8.0 * half.prod(), 1e-9);
  EXPECT_NEAR(a.mass, b.mass, 1e-12 * b.mass);
  EXPECT_LT((a.center - b.center).norm(), 1e-12);
  ExpectMatNear(a.inertia, b.inertia, 1e-12 * b.inertia.norm());
  // The hull's principal moments are the box's.
  const MassProperties mp = ComputeMassProperties(Shape::Hull(*hull), Density(700.0));
  Vec3 sorted = mp.inertia;
  std::sort(sorted.data(), sorted.data() + 3);
  const Vec3 box = ComputeMassProperties(Shape::Box(half), Density(700.0)).inertia;
  Vec3 box_sorted = box;
  std::sort(box_sorted.data(), box_sorted.data() + 3);
  ExpectVecNear(sorted, box_sorted, 1e-12);
}

}  // namespace
}  // namespace ligature
