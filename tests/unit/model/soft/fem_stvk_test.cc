// Explicit St Venant-Kirchhoff FEM: zero force at rest and under rigid motion, zero net
// force and torque, force as the negative energy gradient, stiffness damping as the
// force's derivative, the uniaxial patch test, a column settling under gravity, energy
// conservation below the stable step and divergence well above it.

#include "server/model/soft/fem_stvk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"
#include "tests/unit/model/soft/fem_test_util.h"

namespace ligature {
namespace {

using testing::ExpectUniaxialPatch;
using testing::Forces;
using testing::MaxNorm;
using testing::Noise;
using testing::Perturbed;
using testing::Tissue;

TEST(StVKTest, ZeroForceAtRestAndUnderRigidMotion) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.1, 0.1), 4, 2, 2);
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  // Scale of a force from a unit strain on the smallest edge's square.
  const double scale = 1.0e5 * 0.1 * 0.1;
  EXPECT_LT(MaxNorm(Forces(*model, mesh.vertices)), 1e-12 * scale);
  EXPECT_NEAR(model->StrainEnergy(mesh.vertices), 0.0, 1e-20);

  const Mat3 q = Eigen::AngleAxisd(2.1, Vec3(1.0, -2.0, 0.5).normalized()).toRotationMatrix();
  const Vec3 t(0.3, -1.2, 0.7);
  std::vector<Vec3> moved = mesh.vertices;
  for (Vec3& p : moved) p = q * p + t;
  EXPECT_LT(MaxNorm(Forces(*model, moved)), 1e-10 * scale);
  // A stretch is not a rigid motion: the check above could fail.
  std::vector<Vec3> stretched = moved;
  for (Vec3& p : stretched) p *= 1.01;
  EXPECT_GT(MaxNorm(Forces(*model, stretched)), 1e-4 * scale);
}

TEST(StVKTest, InternalForcesHaveNoNetForceOrTorque) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.1, 0.1), 3, 2, 2);
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<Vec3> x = Perturbed(mesh, 0.03, 7);
  const std::vector<Vec3> f = Forces(*model, x);
  testing::ExpectNoNetForceOrTorque(x, f);
}

// Central differences of StrainEnergy against every component of the force.
TEST(StVKTest, ForceIsMinusTheEnergyGradient) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 2, 1, 1);
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue(1.0e5, 0.35));
  ASSERT_TRUE(model.ok()) << model.status();
  // Large deformation, so that the non-linear terms matter.
  std::vector<Vec3> x = Perturbed(mesh, 0.02, 11);
  const std::vector<Vec3> f = Forces(*model, x);
  const double largest = MaxNorm(f);
  const double delta = 1e-7;
  for (size_t i = 0; i < x.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      const double saved = x[i][k];
      x[i][k] = saved + delta;
      const double plus = model->StrainEnergy(x);
      x[i][k] = saved - delta;
      const double minus = model->StrainEnergy(x);
      x[i][k] = saved;
      const double gradient = (plus - minus) / (2.0 * delta);
      EXPECT_NEAR(f[i][k], -gradient, 1e-6 * largest) << "vertex " << i << " axis " << k;
    }
  }
}

// With only stiffness damping, the damping force is beta times the change of the elastic
// force along v: compare with a finite difference of the forces.
TEST(StVKTest, StiffnessDampingIsTheForceDerivativeAlongVelocity) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 2, 1, 1);
  FemMaterial m = Tissue();
  m.stiffness_damping = 0.01;
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, m);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state;
  state.x = Perturbed(mesh, 0.01, 3);
  state.v = Noise(mesh.vertices.size(), 1.0, 4);
  std::vector<Vec3> damping(mesh.vertices.size(), Vec3::Zero());
  model->AddDampingForces(state, &damping);
  const double eps = 1e-7;
  std::vector<Vec3> plus = state.x, minus = state.x;
  for (size_t i = 0; i < plus.size(); ++i) {
    plus[i] += eps * state.v[i];
    minus[i] -= eps * state.v[i];
  }
  const std::vector<Vec3> fp = Forces(*model, plus), fm = Forces(*model, minus);
  const double largest = MaxNorm(damping);
  ASSERT_GT(largest, 0.0);
  for (size_t i = 0; i < damping.size(); ++i) {
    const Vec3 expected = m.stiffness_damping * (fp[i] - fm[i]) / (2.0 * eps);
    EXPECT_LT((damping[i] - expected).norm(), 1e-5 * largest) << "vertex " << i;
  }
}

// Uniaxial stress: stretch eps along x, contraction -nu eps across. The internal forces on
// the +x face nodes sum to -P_xx A, and P_xx = E eps to first order.
TEST(StVKTest, PatchTestUniaxialStress) {
  const Vec3 half(0.2, 0.05, 0.075);
  const TetMesh mesh = MakeBoxMesh(half, 4, 2, 3);
  const double young = 2.0e5, nu = 0.3, eps = 1e-4;
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue(young, nu));
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectUniaxialPatch(*model, mesh, half, young, nu, eps);
}

// A column fixed at its base settles under gravity (nu = 0, so it is a 1D bar): the top
// drops by rho g H^2 / (2 E). Stiff enough that the Green strain's non-linearity stays
// well below the tolerance; mass damping near critical for the first mode.
TEST(StVKTest, ColumnUnderGravityCompressesByTheStaticDeflection) {
  const double height = 1.0, young = 1.0e7, rho = 1000.0, g = 9.81;
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.5 * height), 2, 2, 8);
  FemMaterial m = Tissue(young, 0.0);
  m.density = rho;
  const double omega1 = std::acos(-1.0) / 2.0 * std::sqrt(young / rho) / height;
  m.mass_damping = 2.0 * omega1;
  std::vector<int> bottom;
  for (int i = 0; i < static_cast<int>(mesh.vertices.size()); ++i) {
    if (mesh.vertices[i].z() < -0.5 * height + 1e-9) bottom.push_back(i);
  }
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, m, bottom);
  ASSERT_TRUE(model.ok()) << model.status();
  const double h = 0.5 * model->StableTimeStep();
  FemState state = RestFemState(mesh);
  const Vec3 gravity(0.0, 0.0, -g);
  for (double t = 0.0; t < 0.4; t += h) model->Step(h, gravity, {}, &state);

  double top = 0.0;
  int count = 0;
  for (size_t i = 0; i < state.x.size(); ++i) {
    if (mesh.vertices[i].z() > 0.5 * height - 1e-9) {
      top += state.x[i].z() - mesh.vertices[i].z();
      ++count;
    }
  }
  top /= count;
  const double expected = rho * g * height * height / (2.0 * young);
  EXPECT_NEAR(-top, expected, 0.02 * expected);
  for (int i : bottom) EXPECT_EQ(state.x[i], mesh.vertices[i]);
  // Near rest: speeds far below those of the first mode's oscillation.
  double fastest = 0.0;
  for (const Vec3& v : state.v) fastest = std::max(fastest, v.norm());
  EXPECT_LT(fastest, 1e-2 * expected * omega1);
}

// Without damping, below the stable step, the total energy of a vibrating block stays
// within a few percent of its initial value. Semi-implicit Euler's velocities live half a
// step off the positions, so the kinetic energy at x_n uses the mean of the velocities
// before and after it.
TEST(StVKTest, ExplicitStepConservesEnergyBelowTheStableStep) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 3, 3, 3);
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  for (Vec3& p : state.x) p = Vec3(1.03 * p.x(), 0.99 * p.y(), p.z() + 0.02 * p.x() * p.x() / 0.1);
  const double h = 0.25 * model->StableTimeStep();
  const double e0 = model->StrainEnergy(state.x);
  ASSERT_GT(e0, 0.0);
  double lowest = e0, highest = e0, least_strain = e0;
  for (int step = 0; step < 1000; ++step) {
    FemState centred = state;  // x_n and the velocity that reached it
    model->Step(h, Vec3::Zero(), {}, &state);
    for (size_t i = 0; i < centred.v.size(); ++i) {
      centred.v[i] = 0.5 * (centred.v[i] + state.v[i]);
    }
    const double strain = model->StrainEnergy(centred.x);
    const double e = strain + model->KineticEnergy(centred);
    lowest = std::min(lowest, e);
    highest = std::max(highest, e);
    least_strain = std::min(least_strain, strain);
  }
  EXPECT_GT(lowest, 0.97 * e0);
  EXPECT_LT(highest, 1.03 * e0);
  // It did vibrate: energy went from strain into motion.
  EXPECT_LT(least_strain, 0.5 * e0);
}

// Far above the estimate, the explicit step is unstable (so the estimate is not loose by
// orders of magnitude, and the implicit model's stability at such steps means something).
TEST(StVKTest, ExplicitStepDivergesWellAboveTheStableStep) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 3, 3, 3);
  absl::StatusOr<StVKModel> model = StVKModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  state.x = Perturbed(mesh, 1e-4, 5);
  const double e0 = model->StrainEnergy(state.x);
  const double h = 5.0 * model->StableTimeStep();
  double highest = e0;
  for (int step = 0; step < 200 && std::isfinite(highest); ++step) {
    model->Step(h, Vec3::Zero(), {}, &state);
    highest = std::max(highest, model->StrainEnergy(state.x) + model->KineticEnergy(state));
    if (!std::isfinite(highest) || highest > 1e6 * e0) break;
  }
  EXPECT_TRUE(!std::isfinite(highest) || highest > 1e6 * e0) << highest / e0;
}

}  // namespace
}  // namespace ligature
