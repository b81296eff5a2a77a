// Mass-point model: masses from tet volumes, forces at rest and under rigid motion, forces
// as minus the energy gradient, momentum conservation of the internal forces, the
// stiffness and damping Jacobians against finite differences, and input validation.

#include "server/model/soft/mass_point_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/SparseCore>

#include "server/math/types.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

MassPointMaterial TestMaterial() {
  MassPointMaterial m;
  m.density = 500.0;
  m.distance_stiffness = 300.0;
  m.volume_stiffness = 700.0;
  m.damping = 2.0;
  return m;
}

MassPointModel BoxModel(const MassPointMaterial& material = TestMaterial()) {
  absl::StatusOr<MassPointModel> model =
      MassPointModel::FromTetMesh(MakeBoxMesh(Vec3(0.5, 0.4, 0.3), 2, 2, 2), material);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

// Rest positions moved randomly by up to `amount` per coordinate.
std::vector<Vec3> Perturbed(const MassPointModel& model, double amount, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-amount, amount);
  std::vector<Vec3> x = model.rest_positions();
  for (Vec3& p : x) p += Vec3(u(rng), u(rng), u(rng));
  return x;
}

std::vector<Vec3> Forces(const MassPointModel& model, const std::vector<Vec3>& x,
                         const std::vector<Vec3>& v, const Vec3& g = Vec3::Zero()) {
  std::vector<Vec3> f;
  ComputeForces(model, x, v, g, &f);
  return f;
}

double MaxNorm(const std::vector<Vec3>& f) {
  double m = 0.0;
  for (const Vec3& x : f) m = std::max(m, x.norm());
  return m;
}

TEST(MassPointModelTest, MassesComeFromTetVolumes) {
  const MassPointModel model = BoxModel();
  const double volume = 1.0 * 0.8 * 0.6;
  EXPECT_NEAR(model.total_mass(), TestMaterial().density * volume, 1e-9);
  // A corner vertex of the Kuhn split box belongs to one or several tets; the mass at
  // each point is a quarter of the mass of its tets.
  const TetMesh mesh = MakeBoxMesh(Vec3(0.5, 0.4, 0.3), 2, 2, 2);
  std::vector<double> expected(mesh.vertices.size(), 0.0);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    for (int v : mesh.tets[t]) expected[v] += 0.25 * TestMaterial().density * TetVolume(mesh, t);
  }
  for (int i = 0; i < model.points(); ++i) EXPECT_NEAR(model.masses()[i], expected[i], 1e-12);
  // Every distinct tet edge once: a 2x2x2 Kuhn box has 27 points and 98 edges
  // (grid edges 54, face diagonals 36, cell diagonals 8).
  EXPECT_EQ(model.edges().size(), 98u);
  EXPECT_EQ(model.tets().size(), 48u);
}

TEST(MassPointModelTest, ZeroForceAtRest) {
  const MassPointModel model = BoxModel();
  const MassPointState s = RestState(model);
  EXPECT_LT(MaxNorm(Forces(model, s.x, s.v)), 1e-10);
  EXPECT_NEAR(ElasticEnergy(model, s.x), 0.0, 1e-20);
}

TEST(MassPointModelTest, GravityIsMassTimesG) {
  const MassPointModel model = BoxModel();
  const MassPointState s = RestState(model);
  const Vec3 g(0.0, 0.0, -9.81);
  const std::vector<Vec3> f = Forces(model, s.x, s.v, g);
  for (int i = 0; i < model.points(); ++i) {
    EXPECT_LT((f[i] - model.masses()[i] * g).norm(), 1e-10);
  }
}

TEST(MassPointModelTest, ForceIsMinusEnergyGradient) {
  const MassPointModel model = BoxModel();
  std::vector<Vec3> x = Perturbed(model, 0.06, 7);
  const std::vector<Vec3> v(model.points(), Vec3::Zero());
  const std::vector<Vec3> f = Forces(model, x, v);
  ASSERT_GT(MaxNorm(f), 1.0);  // a real deformation
  const double step = 1e-6;
  double worst = 0.0;
  for (int i = 0; i < model.points(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const double keep = x[i][c];
      x[i][c] = keep + step;
      const double plus = ElasticEnergy(model, x);
      x[i][c] = keep - step;
      const double minus = ElasticEnergy(model, x);
      x[i][c] = keep;
      worst = std::max(worst, std::abs(f[i][c] + (plus - minus) / (2.0 * step)));
    }
  }
  EXPECT_LT(worst, 1e-6 * MaxNorm(f));
}

TEST(MassPointModelTest, RigidMotionHasNoElasticOrDampingForce) {
  const MassPointModel model = BoxModel();
  const Mat3 r = Eigen::AngleAxisd(0.9, Vec3(1.0, -2.0, 0.5).normalized()).toRotationMatrix();
  const Vec3 shift(3.0, -1.0, 2.0);
  const Vec3 omega(0.3, 1.1, -0.7), velocity(0.5, 0.2, -1.0);
  std::vector<Vec3> x, v;
  for (const Vec3& p : model.rest_positions()) {
    x.push_back(r * p + shift);
    v.push_back(velocity + omega.cross(x.back() - shift));
  }
  EXPECT_LT(MaxNorm(Forces(model, x, v)), 1e-9);
  EXPECT_LT(ElasticEnergy(model, x), 1e-20);
}

TEST(MassPointModelTest, InternalForcesConserveMomentum) {
  const MassPointModel model = BoxModel();
  const std::vector<Vec3> x = Perturbed(model, 0.08, 11);
  std::vector<Vec3> v = Perturbed(model, 1.0, 12);
  for (int i = 0; i < model.points(); ++i) v[i] -= model.rest_positions()[i];
  const std::vector<Vec3> f = Forces(model, x, v);
  ASSERT_GT(MaxNorm(f), 1.0);
  Vec3 sum = Vec3::Zero(), torque = Vec3::Zero();
  for (int i = 0; i < model.points(); ++i) {
    sum += f[i];
    torque += x[i].cross(f[i]);
  }
  EXPECT_LT(sum.norm(), 1e-10 * MaxNorm(f) * model.points());
  EXPECT_LT(torque.norm(), 1e-10 * MaxNorm(f) * model.points());
}

// At rest the stiffness matrix is the exact Jacobian (the terms left out vanish there);
// checked on a slightly stretched state where all edges are longer than at rest, using
// only the distance term, and at rest with both terms.
TEST(MassPointModelTest, StiffnessMatchesFiniteDifferences) {
  for (double stretch : {1.0, 1.05}) {
    MassPointMaterial material = TestMaterial();
    if (stretch != 1.0) material.volume_stiffness = 0.0;
    const MassPointModel model = BoxModel(material);
    std::vector<Vec3> x = model.rest_positions();
    for (Vec3& p : x) p *= stretch;
    const std::vector<Vec3> v(model.points(), Vec3::Zero());
    const Eigen::MatrixXd k = Eigen::MatrixXd(ElasticStiffness(model, x));
    EXPECT_LT((k - k.transpose()).norm(), 1e-9 * k.norm());
    const int n = model.points();
    Eigen::MatrixXd fd(3 * n, 3 * n);
    const double step = 1e-6;
    for (int j = 0; j < n; ++j) {
      for (int c = 0; c < 3; ++c) {
        const double keep = x[j][c];
        x[j][c] = keep + step;
        const std::vector<Vec3> fp = Forces(model, x, v);
        x[j][c] = keep - step;
        const std::vector<Vec3> fm = Forces(model, x, v);
        x[j][c] = keep;
        for (int i = 0; i < n; ++i) {
          fd.block<3, 1>(3 * i, 3 * j + c) = (fp[i] - fm[i]) / (2.0 * step);
        }
      }
    }
    EXPECT_LT((k - fd).norm(), 1e-6 * k.norm()) << "stretch " << stretch;
  }
}

TEST(MassPointModelTest, DampingJacobianMatchesFiniteDifferences) {
  MassPointMaterial material = TestMaterial();
  material.distance_stiffness = 0.0;
  material.volume_stiffness = 0.0;
  const MassPointModel model = BoxModel(material);
  const std::vector<Vec3> x = Perturbed(model, 0.05, 3);
  std::vector<Vec3> v(model.points(), Vec3::Zero());
  const Eigen::MatrixXd d = Eigen::MatrixXd(DampingJacobian(model, x));
  const int n = model.points();
  Eigen::MatrixXd fd(3 * n, 3 * n);
  for (int j = 0; j < n; ++j) {
    for (int c = 0; c < 3; ++c) {
      v[j][c] = 1.0;
      const std::vector<Vec3> f = Forces(model, x, v);  // linear in v
      v[j][c] = 0.0;
      for (int i = 0; i < n; ++i) fd.block<3, 1>(3 * i, 3 * j + c) = f[i];
    }
  }
  EXPECT_GT(d.norm(), 1.0);
  EXPECT_LT((d - fd).norm(), 1e-10 * d.norm());
}

// Two points of an edge pressed onto one spot: the edge has no direction and adds no force
// (no division by its zero length); the forces stay finite and equal and opposite.
TEST(MassPointModelTest, CollapsedEdgeAddsNoForce) {
  const MassPointMaterial m = TestMaterial();
  auto model = MassPointModel::FromParts({Vec3::Zero(), Vec3::UnitX()}, {1.0, 1.0}, {{0, 1}},
                                         {}, m);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<Vec3> x = {Vec3(0.3, 0, 0), Vec3(0.3, 0, 0)};
  const std::vector<Vec3> v = {Vec3(1, 0, 0), Vec3(-1, 0, 0)};
  const std::vector<Vec3> f = Forces(*model, x, v);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], Vec3::Zero());
  EXPECT_EQ(f[1], Vec3::Zero());
}

TEST(MassPointModelTest, RejectsBadInput) {
  const MassPointMaterial m = TestMaterial();
  const std::vector<Vec3> two = {Vec3::Zero(), Vec3::UnitX()};
  EXPECT_FALSE(MassPointModel::FromParts(two, {1.0, 0.0}, {{0, 1}}, {}, m).ok());
  EXPECT_FALSE(MassPointModel::FromParts(two, {1.0, -1.0}, {{0, 1}}, {}, m).ok());
  EXPECT_FALSE(MassPointModel::FromParts(two, {1.0}, {{0, 1}}, {}, m).ok());
  EXPECT_FALSE(MassPointModel::FromParts(two, {1.0, 1.0}, {{0, 2}}, {}, m).ok());
  EXPECT_FALSE(MassPointModel::FromParts(two, {1.0, 1.0}, {{1, 1}}, {}, m).ok());
  EXPECT_FALSE(
      MassPointModel::FromParts({Vec3::Zero(), Vec3::Zero()}, {1.0, 1.0}, {{0, 1}}, {}, m).ok());
  EXPECT_TRUE(MassPointModel::FromParts(two, {1.0, 1.0}, {{0, 1}}, {}, m).ok());

  TetMesh flipped = MakeBoxMesh(Vec3(1.0, 1.0, 1.0), 1, 1, 1);
  std::swap(flipped.tets[0][2], flipped.tets[0][3]);
  EXPECT_FALSE(MassPointModel::FromTetMesh(flipped, m).ok());
  TetMesh bad_index = MakeBoxMesh(Vec3(1.0, 1.0, 1.0), 1, 1, 1);
  bad_index.tets[0][0] = 100;
  EXPECT_FALSE(MassPointModel::FromTetMesh(bad_index, m).ok());
  TetMesh unused = MakeBoxMesh(Vec3(1.0, 1.0, 1.0), 1, 1, 1);
  unused.vertices.push_back(Vec3(5.0, 5.0, 5.0));  // no tet: no mass
  EXPECT_FALSE(MassPointModel::FromTetMesh(unused, m).ok());
  MassPointMaterial negative = m;
  negative.distance_stiffness = -1.0;
  EXPECT_FALSE(MassPointModel::FromTetMesh(MakeBoxMesh(Vec3(1, 1, 1), 1, 1, 1), negative).ok());
}

}  // namespace
}  // namespace ligature
