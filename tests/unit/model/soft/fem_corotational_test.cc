// Corotational FEM with implicit Euler: the rest stiffness's symmetry and null space, zero
// force under rigid motion, zero net force and torque, proper rotations of inverted tets
// and their recovery, the uniaxial patch test, a column settling under gravity with fixed
// base, stability far above the explicit step, the compliance of the factorized system
// against an actual step, and the preconditioned solve against the direct one.

#include "server/model/soft/fem_corotational.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/cutting.h"
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

std::vector<int> VerticesBelow(const TetMesh& mesh, double z) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(mesh.vertices.size()); ++i) {
    if (mesh.vertices[i].z() < z) out.push_back(i);
  }
  return out;
}

TEST(CorotationalTest, RestStiffnessIsSymmetricAndIgnoresTranslations) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 1, 1, 1);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  for (int t = 0; t < model->tet_count(); ++t) {
    const Mat12 k =
        RestStiffness(model->rest().dm_inverse[t], model->rest().volume[t], model->lame());
    EXPECT_LT((k - k.transpose()).norm(), 1e-9 * k.norm());
    for (int axis = 0; axis < 3; ++axis) {
      Vec12 shift = Vec12::Zero();
      for (int i = 0; i < 4; ++i) shift[3 * i + axis] = 1.0;
      EXPECT_LT((k * shift).norm(), 1e-9 * k.norm());
    }
    // Positive semi-definite with exactly the 6 rigid modes in its null space.
    const Eigen::SelfAdjointEigenSolver<Mat12> eigen(k);
    const auto& values = eigen.eigenvalues();
    EXPECT_GT(values[0], -1e-9 * values[11]);
    EXPECT_LT(std::abs(values[5]), 1e-9 * values[11]);
    EXPECT_GT(values[6], 1e-6 * values[11]);
  }
}

// The elastic forces and energy, which the model computes from each tet's stress, are
// -R K0 (R^T x - x0) and its energy with K0 formed block by block.
TEST(CorotationalTest, ForcesAndEnergyAreThoseOfTheRestStiffness) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.1, 0.1), 3, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<Vec3> x = Perturbed(mesh, 0.02, 3);
  const Mat3 q = Eigen::AngleAxisd(0.7, Vec3(1.0, 0.5, -1.0).normalized()).toRotationMatrix();
  for (Vec3& p : x) p = q * p;
  std::vector<Vec3> expected(x.size(), Vec3::Zero());
  double energy = 0.0;
  for (int t = 0; t < model->tet_count(); ++t) {
    const std::array<int, 4>& tet = mesh.tets[t];
    const Mat3 r = model->Rotation(x, t);
    Vec12 u;
    for (int i = 0; i < 4; ++i)
      u.segment<3>(3 * i) = r.transpose() * x[tet[i]] - mesh.vertices[tet[i]];
    const Mat12 k =
        RestStiffness(model->rest().dm_inverse[t], model->rest().volume[t], model->lame());
    const Vec12 w = k * u;
    for (int i = 0; i < 4; ++i) expected[tet[i]] -= r * w.segment<3>(3 * i);
    energy += 0.5 * u.dot(w);
  }
  const std::vector<Vec3> f = Forces(*model, x);
  ASSERT_GT(MaxNorm(expected), 0.0);
  for (size_t v = 0; v < x.size(); ++v) {
    EXPECT_LT((f[v] - expected[v]).norm(), 1e-9 * MaxNorm(expected)) << v;
  }
  EXPECT_NEAR(model->StrainEnergy(x), energy, 1e-9 * energy);
}

TEST(CorotationalTest, ZeroForceAtRestAndUnderRigidMotion) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.1, 0.1), 4, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  const double scale = 1.0e5 * 0.1 * 0.1;
  EXPECT_LT(MaxNorm(Forces(*model, mesh.vertices)), 1e-12 * scale);

  const Mat3 q = Eigen::AngleAxisd(2.1, Vec3(1.0, -2.0, 0.5).normalized()).toRotationMatrix();
  const Vec3 t(0.3, -1.2, 0.7);
  std::vector<Vec3> moved = mesh.vertices;
  for (Vec3& p : moved) p = q * p + t;
  EXPECT_LT(MaxNorm(Forces(*model, moved)), 1e-10 * scale);
  EXPECT_LT(model->StrainEnergy(moved), 1e-20 * scale);
  for (int tet = 0; tet < model->tet_count(); ++tet) {
    EXPECT_LT((model->Rotation(moved, tet) - q).norm(), 1e-10);
  }
  std::vector<Vec3> stretched = moved;
  for (Vec3& p : stretched) p *= 1.01;
  EXPECT_GT(MaxNorm(Forces(*model, stretched)), 1e-4 * scale);
}

TEST(CorotationalTest, InternalForcesHaveNoNetForceOrTorque) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.1, 0.1), 3, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<Vec3> x = Perturbed(mesh, 0.03, 7);
  const Mat3 q = Eigen::AngleAxisd(0.8, Vec3(0.0, 1.0, 1.0).normalized()).toRotationMatrix();
  for (Vec3& p : x) p = q * p;
  const std::vector<Vec3> f = Forces(*model, x);
  testing::ExpectNoNetForceOrTorque(x, f);
}

TEST(CorotationalTest, RotationOfAnInvertedTetIsProper) {
  const Mat3 f = Eigen::Vector3d(1.2, 0.9, -0.3).asDiagonal();
  const Mat3 q = Eigen::AngleAxisd(0.6, Vec3(1.0, 1.0, 0.0).normalized()).toRotationMatrix();
  const Mat3 r = PolarRotation(q * f);
  EXPECT_NEAR(r.determinant(), 1.0, 1e-12);
  EXPECT_LT((r.transpose() * r - Mat3::Identity()).norm(), 1e-12);
  // The smallest singular direction (z) is the one flipped: R = q.
  EXPECT_LT((r - q).norm(), 1e-10);
  // A plain rotation-times-stretch comes back as the rotation.
  const Mat3 s = (Mat3() << 1.1, 0.1, 0.0, 0.1, 0.9, 0.05, 0.0, 0.05, 1.3).finished();
  EXPECT_LT((PolarRotation(q * s) - q).norm(), 1e-10);
}

// Deformation gradients of well-shaped tets (turned, stretched up to 10:1 and sheared): the
// rotation is the SVD's U V^T, orthonormal and proper.
TEST(CorotationalTest, RotationIsTheSvdPolarFactor) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), stretch(0.3, 3.0);
  for (int trial = 0; trial < 500; ++trial) {
    const Mat3 q =
        Eigen::AngleAxisd(3.0 * unit(rng), Vec3(unit(rng), unit(rng), unit(rng)).normalized())
            .toRotationMatrix();
    const Mat3 shear = Mat3::Identity() + 0.15 * Mat3::NullaryExpr([&] { return unit(rng); });
    const Mat3 f = q * Vec3(stretch(rng), stretch(rng), stretch(rng)).asDiagonal() * shear;
    ASSERT_GT(f.determinant(), 0.0);
    const Eigen::JacobiSVD<Mat3> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Mat3 expected = svd.matrixU() * svd.matrixV().transpose();
    const Mat3 r = PolarRotation(f);
    EXPECT_LT((r - expected).norm(), 1e-10) << trial;
    EXPECT_LT((r.transpose() * r - Mat3::Identity()).norm(), 1e-12) << trial;
    EXPECT_NEAR(r.determinant(), 1.0, 1e-12) << trial;
  }
}

// Small strains, where the iteration takes products alone: the rotation is still the SVD's
// U V^T, orthonormal to round-off.
TEST(CorotationalTest, RotationOfASmallStrainIsTheSvdPolarFactor) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const double strain : {0.0, 1e-9, 1e-5, 1e-3, 0.05, 0.2}) {
    for (int trial = 0; trial < 50; ++trial) {
      const Mat3 q =
          Eigen::AngleAxisd(3.0 * unit(rng), Vec3(unit(rng), unit(rng), unit(rng)).normalized())
              .toRotationMatrix();
      const Mat3 f = q * (Mat3::Identity() + strain * Mat3::NullaryExpr([&] { return unit(rng); }));
      const Eigen::JacobiSVD<Mat3> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
      const Mat3 expected = svd.matrixU() * svd.matrixV().transpose();
      const Mat3 r = PolarRotation(f);
      EXPECT_LT((r - expected).norm(), 1e-13) << strain << " " << trial;
      EXPECT_LT((r.transpose() * r - Mat3::Identity()).norm(), 1e-14) << strain << " " << trial;
    }
  }
}

// One tet with a vertex pushed through its opposite face recovers its orientation.
TEST(CorotationalTest, InvertedTetRecovers) {
  TetMesh mesh;
  mesh.vertices = {Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0, 0.1, 0), Vec3(0, 0, 0.1)};
  mesh.tets = {{0, 1, 2, 3}};
  ASSERT_GT(TetVolume(mesh, 0), 0.0);
  FemMaterial m = Tissue();
  m.mass_damping = 5.0;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  state.x[3].z() = -0.05;
  TetMesh now = mesh;
  now.vertices = state.x;
  ASSERT_LT(TetVolume(now, 0), 0.0);
  CorotationalSystem system;
  for (int step = 0; step < 100; ++step) {
    ASSERT_TRUE(model->Step(0.01, Vec3::Zero(), {}, &system, &state).ok());
  }
  now.vertices = state.x;
  EXPECT_NEAR(TetVolume(now, 0), TetVolume(mesh, 0), 0.05 * TetVolume(mesh, 0));
}

// Uniaxial stress: forces on the +x face sum to -E eps A.
TEST(CorotationalTest, PatchTestUniaxialStress) {
  const Vec3 half(0.2, 0.05, 0.075);
  const TetMesh mesh = MakeBoxMesh(half, 4, 2, 3);
  const double young = 2.0e5, nu = 0.3, eps = 1e-4;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue(young, nu));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<Vec3> f = ExpectUniaxialPatch(*model, mesh, half, young, nu, eps);
  const double area = 4.0 * half.y() * half.z();
  // Interior nodes are in equilibrium under a uniform stress.
  for (size_t i = 0; i < f.size(); ++i) {
    const Vec3& p = mesh.vertices[i];
    if (std::abs(p.x()) < half.x() - 1e-9 && std::abs(p.y()) < half.y() - 1e-9 &&
        std::abs(p.z()) < half.z() - 1e-9) {
      EXPECT_LT(f[i].norm(), 1e-9 * young * eps * area) << i;
    }
  }
}

// Column fixed at its base (nu = 0): the top drops by rho g H^2 / (2 E) once at rest.
TEST(CorotationalTest, ColumnUnderGravityCompressesByTheStaticDeflection) {
  const double height = 1.0, young = 1.0e6, rho = 1000.0, g = 9.81;
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.5 * height), 2, 2, 8);
  FemMaterial m = Tissue(young, 0.0);
  m.density = rho;
  m.mass_damping = 20.0;
  const std::vector<int> bottom = VerticesBelow(mesh, -0.5 * height + 1e-9);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m, bottom);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  CorotationalSystem system;
  for (int step = 0; step < 100; ++step) {
    ASSERT_TRUE(model->Step(0.02, Vec3(0.0, 0.0, -g), {}, &system, &state).ok());
  }
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
  EXPECT_LT(MaxNorm(state.v), 1e-3 * expected);
}

// A strongly deformed, moving block integrated at 50 times the explicit stable step: the
// total energy never grows, and the block comes to rest near its rest shape.
TEST(CorotationalTest, ImplicitStepIsStableFarAboveTheExplicitLimit) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 3, 3, 3);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  const double h = 50.0 * model->ExplicitTimeStep();
  FemState state = RestFemState(mesh);
  state.x = Perturbed(mesh, 0.01, 9);
  for (Vec3& p : state.x) p = Vec3(1.3 * p.x(), 0.8 * p.y(), p.z());
  state.v = Noise(mesh.vertices.size(), 0.5, 10);
  const double e0 = model->StrainEnergy(state.x) + model->KineticEnergy(state);
  CorotationalSystem system;
  double highest = e0;
  for (int step = 0; step < 50; ++step) {
    ASSERT_TRUE(model->Step(h, Vec3::Zero(), {}, &system, &state).ok());
    highest = std::max(highest, model->StrainEnergy(state.x) + model->KineticEnergy(state));
  }
  EXPECT_LE(highest, e0 * (1.0 + 1e-9));
  EXPECT_LT(model->StrainEnergy(state.x) + model->KineticEnergy(state), 0.1 * e0);
}

// The compliance answers what an extra force does over a step: compare with stepping the
// same state with and without that force.
TEST(CorotationalTest, ResponseMatchesAStepWithTheForce) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 3, 2, 2);
  FemMaterial m = Tissue();
  m.mass_damping = 1.0;
  m.stiffness_damping = 0.001;
  const std::vector<int> bottom = VerticesBelow(mesh, -0.05 + 1e-9);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m, bottom);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState start = RestFemState(mesh);
  start.x = Perturbed(mesh, 0.005, 21);
  for (int i : bottom) start.x[i] = mesh.vertices[i];
  start.v = Noise(mesh.vertices.size(), 0.1, 22);
  for (int i : bottom) start.v[i].setZero();

  const double h = 0.01;
  const Vec3 gravity(0.0, 0.0, -9.81);
  const int vertex = static_cast<int>(mesh.vertices.size()) - 1;  // a top corner
  const Vec3 force(0.3, -0.2, 0.5);

  CorotationalSystem system(CorotationalSolve::kDirect);
  FemState free = start;
  ASSERT_TRUE(model->Step(h, gravity, {}, &system, &free).ok());
  ASSERT_TRUE(system.exact_response());
  const Mat3 compliance = system.Compliance(vertex);
  // The displacement field of the force: h^2 A^-1 f, a vertex's blocks at a time.
  const int n = static_cast<int>(mesh.vertices.size());
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  const Eigen::MatrixXd between = h * h * system.InverseBetween(all);
  std::vector<Vec3> field(n);
  for (int i = 0; i < n; ++i) field[i] = between.block<3, 3>(3 * i, 3 * vertex) * force;

  std::vector<Vec3> external(mesh.vertices.size(), Vec3::Zero());
  external[vertex] = force;
  FemState pushed = start;
  ASSERT_TRUE(model->Step(h, gravity, external, &system, &pushed).ok());

  const Vec3 moved = pushed.x[vertex] - free.x[vertex];
  ASSERT_GT(moved.norm(), 0.0);
  EXPECT_LT((compliance * force - moved).norm(), 1e-9 * moved.norm());
  for (size_t i = 0; i < field.size(); ++i) {
    EXPECT_LT((field[i] - (pushed.x[i] - free.x[i])).norm(), 1e-9 * moved.norm()) << i;
  }
  EXPECT_LT((compliance - compliance.transpose()).norm(), 1e-9 * compliance.norm());
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(compliance).eigenvalues()[0], 0.0);
  // Fixed vertices do not respond.
  EXPECT_EQ(system.Compliance(bottom[0]), Mat3::Zero());
  EXPECT_EQ(field[bottom[0]], Vec3::Zero());
  // The exposed matrix is the one factorized: A dv = rhs.
  EXPECT_LT((system.matrix() * system.velocity_change() - system.rhs()).norm(),
            1e-9 * system.rhs().norm());
}

// A bent, turned and moving beam: the preconditioned step gives the direct step's velocity
// change to the tolerance, in a few iterations.
TEST(CorotationalTest, PreconditionedStepMatchesTheDirectOne) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.05, 0.05), 8, 2, 2);
  FemMaterial m = Tissue();
  m.mass_damping = 1.0;
  m.stiffness_damping = 0.001;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  const Mat3 q = Eigen::AngleAxisd(1.1, Vec3(0.3, 1.0, -0.4).normalized()).toRotationMatrix();
  for (Vec3& p : state.x) {
    const double bend = 0.15 * p.x() * p.x() / 0.2;  // a bend of the axis in z
    p = q * Vec3(p.x(), p.y(), p.z() + bend) + Vec3(0.5, -0.2, 1.0);
  }
  state.v = Noise(mesh.vertices.size(), 0.3, 31);
  const double h = 0.01;
  const Vec3 gravity(0.0, 0.0, -9.81);

  CorotationalSystem direct(CorotationalSolve::kDirect);
  CorotationalSystem iterative(CorotationalSolve::kPreconditioned);
  ASSERT_TRUE(model->Assemble(state, h, gravity, {}, &direct).ok());
  ASSERT_TRUE(model->Assemble(state, h, gravity, {}, &iterative).ok());
  EXPECT_FALSE(iterative.exact_response());
  EXPECT_GT(iterative.iterations(), 0);
  EXPECT_LT(iterative.iterations(), CorotationalSystem::kMaxIterations);
  const Eigen::VectorXd& exact = direct.velocity_change();
  EXPECT_LT((iterative.velocity_change() - exact).norm(), 1e-8 * exact.norm());
  EXPECT_LT((iterative.matrix() * iterative.velocity_change() - iterative.rhs()).norm(),
            CorotationalSystem::kTolerance * iterative.rhs().norm());
}

// A bent, moving bar stepped twice from the same state: the second step starts from the
// first one's dv (kept in the state by Advance) and meets the same residual in fewer
// iterations; a guess of the wrong size is ignored.
TEST(CorotationalTest, StepStartsFromTheLastVelocityChange) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.2, 0.05, 0.05), 8, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  for (Vec3& p : state.x) p.z() += 0.3 * p.x() * p.x();
  state.v = Noise(mesh.vertices.size(), 0.3, 5);
  const double h = 0.01;
  const Vec3 gravity(0.0, 0.0, -9.81);
  CorotationalSystem cold;
  ASSERT_TRUE(model->Assemble(state, h, gravity, {}, &cold).ok());
  ASSERT_FALSE(cold.exact_response());
  FemState after = state;
  model->Advance(cold, &after);
  ASSERT_EQ(after.dv.size(), mesh.vertices.size());
  for (size_t v = 0; v < after.dv.size(); ++v) {
    EXPECT_EQ(after.dv[v], Vec3(cold.velocity_change().segment<3>(3 * v))) << v;
  }

  // The same step again, from the first one's answer, perturbed by 1e-6 of it.
  FemState again = state;
  again.dv = after.dv;
  for (Vec3& dv : again.dv) dv *= 1.0 + 1e-6;
  CorotationalSystem warm;
  ASSERT_TRUE(model->Assemble(again, h, gravity, {}, &warm).ok());
  EXPECT_LT(warm.iterations(), cold.iterations());
  EXPECT_LT((warm.matrix() * warm.velocity_change() - warm.rhs()).norm(),
            CorotationalSystem::kTolerance * warm.rhs().norm());
  // Two answers within the tolerance of one system, apart by at most its residual turned by
  // A^-1 (measured: 1.05 kTolerance).
  EXPECT_LT((warm.velocity_change() - cold.velocity_change()).norm(),
            10 * CorotationalSystem::kTolerance * cold.velocity_change().norm());

  again.dv.pop_back();
  CorotationalSystem wrong_size;
  ASSERT_TRUE(model->Assemble(again, h, gravity, {}, &wrong_size).ok());
  EXPECT_EQ(wrong_size.iterations(), cold.iterations());
  EXPECT_EQ(wrong_size.velocity_change(), cold.velocity_change());
}

// A body turned rigidly away from rest: the rest factorization turned with it is the step's
// own system, so the preconditioned compliance is the exact one (to the frame's grid).
TEST(CorotationalTest, PreconditionedComplianceIsExactForATurnedBody) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 3, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  const Mat3 q = Eigen::AngleAxisd(2.3, Vec3(1.0, -1.0, 2.0).normalized()).toRotationMatrix();
  for (Vec3& p : state.x) p = q * p + Vec3(0.1, 0.2, 0.3);
  EXPECT_LT((model->BodyRotation(state.x) - q).norm(), 1e-12);

  CorotationalSystem direct(CorotationalSolve::kDirect);
  CorotationalSystem iterative;
  ASSERT_TRUE(model->Assemble(state, 0.01, Vec3::Zero(), {}, &direct).ok());
  ASSERT_TRUE(model->Assemble(state, 0.01, Vec3::Zero(), {}, &iterative).ok());
  ASSERT_FALSE(iterative.exact_response());
  // Exact but for the frame's grid: the body's rotation is taken to within 2e-6 rad, so the
  // blocks are within a relative 1e-5.
  constexpr double kGrid = 1e-5;
  const std::vector<int> some = {0, 7, static_cast<int>(mesh.vertices.size()) - 1};
  const Eigen::MatrixXd between = iterative.InverseBetween(some);
  EXPECT_LT((between - direct.InverseBetween(some)).norm(), kGrid * between.norm());
  for (int v : some) {
    const Mat3 exact = direct.Compliance(v);
    EXPECT_LT((iterative.Compliance(v) - exact).norm(), kGrid * exact.norm()) << v;
    EXPECT_LT((iterative.InverseBlock(0, v) - direct.InverseBlock(0, v)).norm(),
              kGrid * direct.InverseBlock(v, v).norm())
        << v;
  }
}

// A body turned rigidly and moving: every vertex's rotation is the body's, so the iteration's
// preconditioner is the step's own matrix and one iteration solves it.
TEST(CorotationalTest, TurnedBodyIsSolvedInOneIteration) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 3, 2, 2);
  FemMaterial m = Tissue();
  m.mass_damping = 1.0;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  const Mat3 q = Eigen::AngleAxisd(-1.1, Vec3(0.3, 2.0, -1.0).normalized()).toRotationMatrix();
  for (Vec3& p : state.x) p = q * p;
  for (size_t v = 0; v < state.v.size(); ++v) state.v[v] = Vec3(0.1 * v, -0.2, 0.05 * v);
  CorotationalSystem direct(CorotationalSolve::kDirect);
  CorotationalSystem iterative;
  const Vec3 g(0.0, -9.81, 0.0);
  ASSERT_TRUE(model->Assemble(state, 0.01, g, {}, &direct).ok());
  ASSERT_TRUE(model->Assemble(state, 0.01, g, {}, &iterative).ok());
  ASSERT_FALSE(iterative.exact_response());
  EXPECT_EQ(iterative.iterations(), 1);
  const Eigen::VectorXd& exact = direct.velocity_change();
  EXPECT_LT((iterative.velocity_change() - exact).norm(), 1e-9 * exact.norm());
}

// The blocks between vertex sets stay right whichever sets are asked for in turn, and after
// the columns of a set nobody asked for over many steps were dropped and solved again.
TEST(CorotationalTest, BlocksBetweenSetsSurviveTurnsAndDroppedColumns) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 3, 2, 2);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  state.x = Perturbed(mesh, 0.01, 7);
  CorotationalSystem system;
  ASSERT_TRUE(model->Assemble(state, 0.01, Vec3::Zero(), {}, &system).ok());
  const int last = static_cast<int>(mesh.vertices.size()) - 1;
  const std::vector<std::vector<int>> sets = {{0, 5}, {5, last, 2}, {1}, {3, 4}, {last}};
  // Each set's blocks, from its vertices' own columns.
  auto expected = [&](const std::vector<int>& set) {
    Eigen::MatrixXd out(3 * set.size(), 3 * set.size());
    for (size_t i = 0; i < set.size(); ++i) {
      for (size_t j = 0; j < set.size(); ++j) {
        out.block<3, 3>(3 * i, 3 * j) = system.InverseBlock(set[i], set[j]);
      }
    }
    return out;
  };
  for (int round = 0; round < 3; ++round) {
    for (const std::vector<int>& set : sets) {
      const Eigen::MatrixXd want = expected(set);
      EXPECT_LT((system.InverseBetween(set) - want).norm(), 1e-12 * want.norm()) << round;
    }
  }
  // Steps that only ask for vertex 1: the other columns age out, and come back the same.
  const Eigen::MatrixXd before = system.InverseBetween(sets[1]);
  for (int step = 0; step < 60; ++step) {
    ASSERT_TRUE(model->Assemble(state, 0.01, Vec3::Zero(), {}, &system).ok());
    system.InverseBetween(sets[2]);
  }
  EXPECT_EQ(system.InverseBetween(sets[1]), before);
}

// On a deformed body the preconditioned response to a force is approximate, but it carries
// the force's whole impulse: the lumped masses' momentum changes by h f / (1 + h alpha), as
// with the exact response.
TEST(CorotationalTest, PreconditionedResponseCarriesTheWholeImpulse) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.05, 0.05), 4, 2, 2);
  FemMaterial m = Tissue();
  m.mass_damping = 2.0;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, m);
  ASSERT_TRUE(model.ok()) << model.status();
  FemState state = RestFemState(mesh);
  state.x = Perturbed(mesh, 0.01, 41);
  const double h = 0.01;
  CorotationalSystem direct(CorotationalSolve::kDirect);
  CorotationalSystem iterative;
  ASSERT_TRUE(model->Assemble(state, h, Vec3::Zero(), {}, &direct).ok());
  ASSERT_TRUE(model->Assemble(state, h, Vec3::Zero(), {}, &iterative).ok());
  ASSERT_FALSE(iterative.exact_response());

  const int n = static_cast<int>(mesh.vertices.size());
  const Vec3 force(0.4, -1.0, 2.0);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * n);
  b.segment<3>(3 * (n - 1)) = h * force;  // the force's share of the right-hand side
  for (const CorotationalSystem* system : {&direct, &iterative}) {
    const Eigen::VectorXd dv = system->Solve(b);
    Vec3 momentum = Vec3::Zero();
    for (int v = 0; v < n; ++v) momentum += model->rest().mass[v] * dv.segment<3>(3 * v);
    const Vec3 expected = h * force / (1.0 + h * m.mass_damping);
    EXPECT_LT((momentum - expected).norm(), 1e-9 * expected.norm());
  }
}

// A bar cut half way through at its middle (the vertices on the cut split), stepped with
// the factorization of the bar before the cut mapped onto the cut mesh: the step
// converges to the cut bar's own dv, the response to a force on a split vertex carries its
// whole impulse, and the compliance of a split vertex and its twin is symmetric and
// positive definite.
TEST(CorotationalTest, StepsWithTheFactorizationOfTheMeshBeforeACut) {
  const TetMesh whole = MakeBoxMesh(Vec3(0.1, 0.02, 0.02), 6, 2, 2);
  TetMesh cut = whole;
  std::vector<int> blade;
  for (int t = 0; t < static_cast<int>(cut.tets.size()); ++t) {
    Vec3 centroid = Vec3::Zero();
    bool at_middle = false;
    for (const int v : cut.tets[t]) {
      centroid += 0.25 * cut.vertices[v];
      at_middle = at_middle || std::abs(cut.vertices[v].x()) < 1e-9;
    }
    if (at_middle && centroid.z() > 0.0) blade.push_back(t);
  }
  absl::StatusOr<SeparationResult> separated =
      SeparateAlongPlane(CutPlane{Vec3::Zero(), Vec3::UnitX()}, blade, cut.vertices, &cut);
  ASSERT_TRUE(separated.ok()) << separated.status();
  ASSERT_FALSE(separated->splits.empty());
  std::vector<int> to_base(cut.vertices.size());
  for (size_t v = 0; v < to_base.size(); ++v) to_base[v] = static_cast<int>(v);
  for (const VertexSplit& split : separated->splits) to_base[split.duplicate] = split.original;

  FemMaterial m = Tissue();
  m.mass_damping = 1.0;
  const double h = 0.01;
  absl::StatusOr<CorotationalModel> before = CorotationalModel::Make(whole, m);
  absl::StatusOr<CorotationalModel> after = CorotationalModel::Make(cut, m);
  ASSERT_TRUE(before.ok() && after.ok());
  const std::shared_ptr<const RestFactorization> factor = before->FactorizeRest(h);
  ASSERT_NE(factor, nullptr);

  FemState state = RestFemState(cut);
  state.x = Perturbed(cut, 0.004, 43);
  state.v = Noise(cut.vertices.size(), 0.2, 44);
  CorotationalSystem own, mapped;
  mapped.UseRest(factor, to_base);
  ASSERT_TRUE(after->Assemble(state, h, Vec3(0.0, 0.0, -9.81), {}, &own).ok());
  ASSERT_TRUE(after->Assemble(state, h, Vec3(0.0, 0.0, -9.81), {}, &mapped).ok());
  EXPECT_EQ(mapped.rest_factorization(), factor);  // not factorized again
  EXPECT_GT(mapped.iterations(), 0);
  const Eigen::VectorXd& exact = own.velocity_change();
  // Both within the tolerance of one system (measured: 8.8 kTolerance apart).
  EXPECT_LT((mapped.velocity_change() - exact).norm(),
            100 * CorotationalSystem::kTolerance * exact.norm());

  const VertexSplit split = separated->splits.front();
  const int n = static_cast<int>(cut.vertices.size());
  Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * n);
  const Vec3 force(0.3, -0.5, 1.0);
  b.segment<3>(3 * split.duplicate) = h * force;
  const Eigen::VectorXd dv = mapped.Solve(b);
  Vec3 momentum = Vec3::Zero();
  for (int v = 0; v < n; ++v) momentum += after->rest().mass[v] * dv.segment<3>(3 * v);
  const Vec3 expected = h * force / (1.0 + h * m.mass_damping);
  EXPECT_LT((momentum - expected).norm(), 1e-9 * expected.norm());

  const int pair[] = {split.original, split.duplicate};
  const Eigen::MatrixXd c = mapped.InverseBetween(pair);
  EXPECT_LT((c - c.transpose()).norm(), 1e-12 * c.norm());
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(c).eigenvalues().minCoeff(), 0.0);
}

TEST(CorotationalTest, AssembleRejectsBadInput) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 1, 1, 1);
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, Tissue());
  ASSERT_TRUE(model.ok()) << model.status();
  CorotationalSystem system;
  FemState state = RestFemState(mesh);
  EXPECT_EQ(model->Assemble(state, 0.0, Vec3::Zero(), {}, &system).code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<Vec3> external(3, Vec3::Zero());
  EXPECT_EQ(model->Assemble(state, 0.01, Vec3::Zero(), external, &system).code(),
            absl::StatusCode::kInvalidArgument);
  state.v.pop_back();
  EXPECT_EQ(model->Assemble(state, 0.01, Vec3::Zero(), {}, &system).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ligature
