#include "server/model/soft/mass_point_stress.h"

#include <gtest/gtest.h>

#include <random>

#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

// -sum_a f_a (x_a - c)^T over all vertices, f the model's elastic forces at x (no gravity,
// no velocity): the total virial, which the tets' stresses times their volumes must sum to.
Mat3 ForceVirial(const MassPointModel& model, const std::vector<Vec3>& x) {
  std::vector<Vec3> forces;
  const std::vector<Vec3> v(x.size(), Vec3::Zero());
  ComputeForces(model, x, v, Vec3::Zero(), &forces);
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : x) c += p / static_cast<double>(x.size());
  Mat3 virial = Mat3::Zero();
  for (size_t a = 0; a < x.size(); ++a) virial -= forces[a] * (x[a] - c).transpose();
  return virial;
}

double Volume(const std::vector<Vec3>& x, const std::array<int, 4>& q) {
  return (x[q[1]] - x[q[0]]).dot((x[q[2]] - x[q[0]]).cross(x[q[3]] - x[q[0]])) / 6.0;
}

MassPointMaterial Material() {
  MassPointMaterial m;
  m.distance_stiffness = 300.0;
  m.volume_stiffness = 40.0;
  return m;
}

// One tet, deformed at random: sigma V is exactly the virial of the model's forces.
TEST(MassPointStressTest, SingleTetStressIsTheVirialOfItsForces) {
  TetMesh mesh;
  mesh.vertices = {Vec3(0, 0, 0), Vec3(0.01, 0, 0), Vec3(0, 0.01, 0), Vec3(0, 0, 0.01)};
  mesh.tets = {{0, 1, 2, 3}};
  absl::StatusOr<MassPointModel> model = MassPointModel::FromTetMesh(mesh, Material());
  ASSERT_TRUE(model.ok()) << model.status();
  const MassPointStress stress(*model);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.002, 0.002);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Vec3> x = mesh.vertices;
    for (Vec3& p : x) p += Vec3(u(rng), u(rng), u(rng));
    ASSERT_GT(Volume(x, mesh.tets[0]), 0.0);
    const Mat3 sigma = stress.Stress(*model, x, 0);
    const Mat3 expected = ForceVirial(*model, x) / Volume(x, mesh.tets[0]);
    EXPECT_LT((sigma - expected).norm(), 1e-9 * expected.norm()) << trial;
    EXPECT_LT((sigma - sigma.transpose()).norm(), 1e-12 * sigma.norm());
  }
}

// A block of many tets, deformed at random: the tets' stresses times their volumes add up
// to the virial of all the forces (each shared spring counted once, by shares).
TEST(MassPointStressTest, SharedSpringsAreCountedOnce) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.02, 0.01, 0.01), 3, 2, 2);
  absl::StatusOr<MassPointModel> model = MassPointModel::FromTetMesh(mesh, Material());
  ASSERT_TRUE(model.ok()) << model.status();
  const MassPointStress stress(*model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.0005, 0.0005);
  std::vector<Vec3> x = mesh.vertices;
  for (Vec3& p : x) p = Vec3(1.1 * p.x(), 0.95 * p.y(), p.z()) + Vec3(u(rng), u(rng), u(rng));
  Mat3 sum = Mat3::Zero();
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    sum += Volume(x, mesh.tets[t]) * stress.Stress(*model, x, static_cast<int>(t));
  }
  const Mat3 expected = ForceVirial(*model, x);
  EXPECT_LT((sum - expected).norm(), 1e-9 * expected.norm());
  // Stretched along x: tension there.
  EXPECT_GT(sum(0, 0), 0.0);
}

// At rest nothing is stressed.
TEST(MassPointStressTest, RestIsStressFree) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.02, 0.01, 0.01), 2, 1, 1);
  absl::StatusOr<MassPointModel> model = MassPointModel::FromTetMesh(mesh, Material());
  ASSERT_TRUE(model.ok());
  const MassPointStress stress(*model);
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    EXPECT_LT(stress.Stress(*model, mesh.vertices, static_cast<int>(t)).norm(), 1e-9);
  }
}

}  // namespace
}  // namespace ligature
