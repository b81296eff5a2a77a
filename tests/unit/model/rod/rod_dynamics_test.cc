// AssembleRodSystem, RodPotentialEnergy and RodKineticEnergy: F is minus the gradient of
// the potential energy, S's stiffness part is its Hessian (compression dropped) and its
// mass part the consistent mass, S is symmetric positive definite, and the inertia,
// gravity and external terms of F add up to the right totals.

#include "server/model/rod/rod_dynamics.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "server/math/types.h"

namespace ligature {
namespace {

constexpr int kDofs = RodModel::kDofsPerPoint;

// Soft enough that stretching, bending and twisting forces are all well above the
// finite-difference noise.
RodMaterial Soft() {
  RodMaterial m;
  m.radius = 0.01;
  m.density = 1000.0;
  m.young = 1.0e7;
  m.shear = 4.0e6;
  return m;
}

struct TestRod {
  RodModel model;
  RodState state;
};

// A straight rod along x, at rest.
TestRod StraightRod(int n, double length, const RodMaterial& material) {
  RodDesc d;
  d.id = "rod";
  d.points = {Vec3::Zero(), Vec3(length, 0, 0)};
  d.control_points = n;
  d.material = material;
  absl::StatusOr<RodModel> model = RodModel::Make(d);
  EXPECT_TRUE(model.ok());
  TestRod rod{*std::move(model), {}};
  rod.state = InitialRodState(rod.model, d.points);
  return rod;
}

// Control points on a bent curve stretched (or compressed) by `scale` along x, with twist:
// |x'| >= scale everywhere since x(u) = scale * u exactly (linear precision).
void Bend(double scale, TestRod* rod) {
  for (int i = 0; i < rod->model.control_points(); ++i) {
    const double g = rod->model.spline().Greville(i);
    rod->state.x[i] = Vec3(scale * g, 0.1 * std::sin(3.0 * g), 0.05 * g * g);
    rod->state.theta[i] = 0.3 * std::sin(2.0 * g);
  }
}

// Dense S from the upper blocks (lower blocks are their transposes by definition).
Eigen::MatrixXd DenseS(const RodSystem& sys) {
  const int n = sys.control_points();
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(kDofs * n, kDofs * n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 4 && i + k < n; ++k) {
      s.block<4, 4>(kDofs * i, kDofs * (i + k)) = sys.upper[i][k];
      if (k > 0) s.block<4, 4>(kDofs * (i + k), kDofs * i) = sys.upper[i][k].transpose();
    }
  }
  return s;
}

Eigen::VectorXd DenseF(const RodSystem& sys) {
  Eigen::VectorXd f(kDofs * sys.control_points());
  for (int i = 0; i < sys.control_points(); ++i) f.segment<4>(kDofs * i) = sys.rhs[i];
  return f;
}

// The DOF k (x, y, z, theta of point k / 4) of a state, for perturbing.
double& Dof(RodState& s, int k) {
  const int i = k / kDofs, a = k % kDofs;
  return a < 3 ? s.x[i][a] : s.theta[i];
}

RodSystem Assemble(const TestRod& rod, double h, const Vec3& gravity,
                   const std::vector<std::pair<double, Vec3>>& external = {}) {
  RodSystem sys;
  AssembleRodSystem(rod.model, rod.state, h, gravity, external, &sys);
  return sys;
}

// The consistent mass matrix, computed here from the quadrature.
Eigen::MatrixXd ConsistentMass(const RodModel& model) {
  const int n = model.control_points();
  const double rho_a = model.material().density * model.area();
  const double rho_j = model.material().density * model.polar_inertia();
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(kDofs * n, kDofs * n);
  for (const RodQuadrature& q : model.quadrature()) {
    for (int a = 0; a < 4; ++a) {
      for (int c = 0; c < 4; ++c) {
        const int i = q.basis.first + a, j = q.basis.first + c;
        const double w = q.weight * q.basis.b[a] * q.basis.b[c];
        for (int d = 0; d < 3; ++d) m(kDofs * i + d, kDofs * j + d) += rho_a * w;
        m(kDofs * i + 3, kDofs * j + 3) += rho_j * w;
      }
    }
  }
  return m;
}

TEST(RodDynamicsTest, StraightRodAtRestHasNoForce) {
  const TestRod rod = StraightRod(12, 1.3, Soft());
  const RodSystem sys = Assemble(rod, 0.01, Vec3::Zero());
  ASSERT_EQ(sys.control_points(), 12);
  ASSERT_EQ(sys.upper.size(), 12u);
  // Round-off of |x'| - 1 (1e-15) times EA (3e3 N) and the basis slopes (~10 / m).
  for (int i = 0; i < 12; ++i) EXPECT_LT(sys.rhs[i].norm(), 1e-9) << i;
  EXPECT_NEAR(RodPotentialEnergy(rod.model, rod.state, Vec3::Zero()), 0.0, 1e-20);
  EXPECT_EQ(RodKineticEnergy(rod.model, rod.state), 0.0);
}

// With V = 0 and no gravity, F is exactly the elastic force -dE/dX, twist included.
TEST(RodDynamicsTest, ElasticForceIsMinusEnergyGradient) {
  TestRod rod = StraightRod(10, 1.0, Soft());
  Bend(1.1, &rod);
  const Eigen::VectorXd f = DenseF(Assemble(rod, 0.01, Vec3::Zero()));
  const double eps = 1e-6;
  double largest_twist = 0.0;
  for (int k = 0; k < rod.model.dofs(); ++k) {
    RodState plus = rod.state, minus = rod.state;
    Dof(plus, k) += eps;
    Dof(minus, k) -= eps;
    const double grad = (RodPotentialEnergy(rod.model, plus, Vec3::Zero()) -
                         RodPotentialEnergy(rod.model, minus, Vec3::Zero())) /
                        (2.0 * eps);
    // Round-off ~ 1e-14 J / 2e-6 m and truncation ~ eps^2 E''' stay under 1e-6 N; the
    // bending (~0.1 N) and twisting (~0.01 N m) parts are far above the tolerance.
    EXPECT_NEAR(f[k], -grad, 1e-5) << "dof " << k;
    if (k % kDofs == 3) largest_twist = std::max(largest_twist, std::abs(f[k]));
  }
  EXPECT_GT(largest_twist, 1e-3);  // the twist check is not vacuous
}

// The same with gravity: the gravitational potential -rho A g . x is in the energy too.
TEST(RodDynamicsTest, GravityForceIsMinusPotentialGradient) {
  TestRod rod = StraightRod(8, 0.9, Soft());
  Bend(0.95, &rod);
  const Vec3 g(0.3, -9.81, 1.2);
  const Eigen::VectorXd f = DenseF(Assemble(rod, 0.01, g));
  const Eigen::VectorXd elastic = DenseF(Assemble(rod, 0.01, Vec3::Zero()));
  const double eps = 1e-6;
  for (int k = 0; k < rod.model.dofs(); ++k) {
    RodState plus = rod.state, minus = rod.state;
    Dof(plus, k) += eps;
    Dof(minus, k) -= eps;
    const double grad_e = (RodPotentialEnergy(rod.model, plus, Vec3::Zero()) -
                           RodPotentialEnergy(rod.model, minus, Vec3::Zero())) /
                          (2.0 * eps);
    const double grad_total = (RodPotentialEnergy(rod.model, plus, g) -
                               RodPotentialEnergy(rod.model, minus, g)) /
                              (2.0 * eps);
    // The gravity part alone (linear in X, so its difference quotient is exact up to
    // round-off), then the whole.
    EXPECT_NEAR(f[k] - elastic[k], -(grad_total - grad_e), 1e-6) << "dof " << k;
    EXPECT_NEAR(f[k], -grad_total, 1e-5) << "dof " << k;
  }
}

// Stiffness and mass parts of S, separated with two step sizes (no damping):
// S(h) - S(2h) = 3 M / (4 h^2), K = S(h) - M / h^2.
TEST(RodDynamicsTest, StiffnessIsEnergyHessianAndMassIsConsistent) {
  TestRod rod = StraightRod(9, 1.0, Soft());
  Bend(1.1, &rod);  // in tension everywhere: the stretching Hessian is complete
  const double h = 0.01;
  const Eigen::MatrixXd s1 = DenseS(Assemble(rod, h, Vec3::Zero()));
  const Eigen::MatrixXd s2 = DenseS(Assemble(rod, 2 * h, Vec3::Zero()));
  const Eigen::MatrixXd m = (s1 - s2) * 4.0 * h * h / 3.0;
  const Eigen::MatrixXd k = s1 - m / (h * h);

  const Eigen::MatrixXd expected_m = ConsistentMass(rod.model);
  EXPECT_LT((m - expected_m).cwiseAbs().maxCoeff(), 1e-9 * expected_m.cwiseAbs().maxCoeff());
  // The translational mass adds up to the rod's mass, for each axis.
  double total = 0.0;
  for (int i = 0; i < rod.model.control_points(); ++i) {
    for (int j = 0; j < rod.model.control_points(); ++j) total += m(kDofs * i, kDofs * j);
  }
  EXPECT_NEAR(total, rod.model.mass(), 1e-9 * rod.model.mass());

  // K against the Jacobian of -F (= the Hessian of E with V = 0, no gravity).
  const double eps = 1e-6;
  Eigen::MatrixXd hessian(rod.model.dofs(), rod.model.dofs());
  for (int j = 0; j < rod.model.dofs(); ++j) {
    TestRod plus = rod, minus = rod;
    Dof(plus.state, j) += eps;
    Dof(minus.state, j) -= eps;
    hessian.col(j) = -(DenseF(Assemble(plus, h, Vec3::Zero())) -
                       DenseF(Assemble(minus, h, Vec3::Zero()))) / (2.0 * eps);
  }
  // Entries reach ~5e3 N/m for stretching, ~10 for bending, ~0.1 for twisting; the
  // difference noise is ~1e-7.
  for (int i = 0; i < rod.model.dofs(); ++i) {
    for (int j = 0; j < rod.model.dofs(); ++j) {
      EXPECT_NEAR(k(i, j), hessian(i, j), 1e-4) << i << ", " << j;
    }
  }
}

// Damping scales the mass part by (1/h^2 + alpha/h) and the stiffness by (1 + beta/h).
TEST(RodDynamicsTest, DampingScalesMassAndStiffness) {
  const double h = 0.01, alpha = 3.0, beta = 0.002;
  TestRod rod = StraightRod(8, 1.0, Soft());
  Bend(1.05, &rod);
  const Eigen::MatrixXd s0 = DenseS(Assemble(rod, h, Vec3::Zero()));
  const Eigen::MatrixXd m = ConsistentMass(rod.model);
  const Eigen::MatrixXd k = s0 - m / (h * h);
  const double scale = s0.cwiseAbs().maxCoeff();

  RodMaterial with_alpha = Soft();
  with_alpha.damping = alpha;
  TestRod mass_damped = StraightRod(8, 1.0, with_alpha);
  mass_damped.state = rod.state;
  const Eigen::MatrixXd sa = DenseS(Assemble(mass_damped, h, Vec3::Zero()));
  EXPECT_LT((sa - s0 - alpha / h * m).cwiseAbs().maxCoeff(), 1e-12 * scale);

  RodMaterial with_beta = Soft();
  with_beta.stiffness_damping = beta;
  TestRod stiffness_damped = StraightRod(8, 1.0, with_beta);
  stiffness_damped.state = rod.state;
  const Eigen::MatrixXd sb = DenseS(Assemble(stiffness_damped, h, Vec3::Zero()));
  EXPECT_LT((sb - s0 - beta / h * k).cwiseAbs().maxCoeff(), 1e-12 * scale);
  // F does not depend on the damping (it acts through S only).
  EXPECT_LT((DenseF(Assemble(mass_damped, h, Vec3::Zero())) -
             DenseF(Assemble(rod, h, Vec3::Zero()))).norm(), 1e-12);
}

// S is symmetric (its diagonal blocks are, and nothing is stored past the rod's end) and
// positive definite, also under compression where the stretching Hessian is indefinite.
TEST(RodDynamicsTest, SystemIsSymmetricPositiveDefinite) {
  for (const double scale : {1.0, 1.1, 0.8, 0.5}) {
    TestRod rod = StraightRod(10, 1.0, Soft());
    if (scale != 1.0) Bend(scale, &rod);
    const double h = 0.01;
    const RodSystem sys = Assemble(rod, h, Vec3(0, -9.81, 0));
    const int n = sys.control_points();
    for (int i = 0; i < n; ++i) {
      const Mat4& d = sys.upper[i][0];
      EXPECT_LT((d - d.transpose()).cwiseAbs().maxCoeff(), 1e-12 * d.cwiseAbs().maxCoeff())
          << "scale " << scale << " point " << i;
      for (int k = 1; k < 4; ++k) {
        if (i + k >= n) {
          EXPECT_EQ(sys.upper[i][k], Mat4::Zero()) << i << " " << k;
        }
      }
    }
    const Eigen::MatrixXd s = DenseS(sys);
    EXPECT_LT((s - s.transpose()).cwiseAbs().maxCoeff(), 1e-12 * s.cwiseAbs().maxCoeff());
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(s).info(), Eigen::Success) << scale;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(s);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << scale;
    // The stiffness part alone is positive semi-definite (compression dropped): its
    // smallest eigenvalue is zero (rigid motions) up to round-off of its largest.
    const Eigen::MatrixXd k = s - ConsistentMass(rod.model) / (h * h);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> keig(k);
    EXPECT_GT(keig.eigenvalues().minCoeff(), -1e-10 * keig.eigenvalues().maxCoeff()) << scale;
  }
}

TEST(RodDynamicsTest, GravityAddsUpToWeight) {
  const TestRod rod = StraightRod(14, 1.7, Soft());
  const Vec3 g(0.5, -9.81, 0.2);
  const RodSystem sys = Assemble(rod, 0.005, g);
  Vec4 sum = Vec4::Zero();
  for (const Vec4& f : sys.rhs) sum += f;
  const Vec3 weight = rod.model.mass() * g;
  // Relative round-off of the quadrature sums; the elastic forces (~1e-11 N) cancel.
  EXPECT_LT((sum.head<3>() - weight).norm(), 1e-10 * weight.norm()) << sum.transpose();
  EXPECT_NEAR(sum[3], 0.0, 1e-12);
  // Each control point carries a positive share.
  for (const Vec4& f : sys.rhs) EXPECT_GT(f.head<3>().dot(g), 0.0);
}

// Uniform velocity: M V / h sums to m v / h, twist rate to rho J L omega / h; the kinetic
// energy is 1/2 m v^2 + 1/2 rho J L omega^2.
TEST(RodDynamicsTest, ConsistentMassMomentum) {
  TestRod rod = StraightRod(11, 1.2, Soft());
  const Vec3 v(0.4, -1.1, 2.0);
  const double omega = 3.0, h = 0.002;
  std::fill(rod.state.v.begin(), rod.state.v.end(), v);
  std::fill(rod.state.omega.begin(), rod.state.omega.end(), omega);
  const RodSystem sys = Assemble(rod, h, Vec3::Zero());
  Vec4 sum = Vec4::Zero();
  for (const Vec4& f : sys.rhs) sum += f;
  const double mass = rod.model.mass();
  const double twist_inertia = rod.model.material().density * rod.model.polar_inertia() *
                               rod.model.length();
  EXPECT_LT((sum.head<3>() - mass * v / h).norm(), 1e-10 * (mass * v / h).norm());
  EXPECT_NEAR(sum[3], twist_inertia * omega / h, 1e-10 * twist_inertia * omega / h);
  const double kinetic = 0.5 * mass * v.squaredNorm() + 0.5 * twist_inertia * omega * omega;
  EXPECT_NEAR(RodKineticEnergy(rod.model, rod.state), kinetic, 1e-12 * kinetic);
}

// For any velocities the inertia term is M V / h and the kinetic energy 1/2 V^T M V.
TEST(RodDynamicsTest, InertiaTermAndKineticEnergyUseConsistentMass) {
  TestRod rod = StraightRod(9, 0.8, Soft());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> r(-1.0, 1.0);
  Eigen::VectorXd v(rod.model.dofs());
  for (int i = 0; i < rod.model.control_points(); ++i) {
    rod.state.v[i] = Vec3(r(rng), r(rng), r(rng));
    rod.state.omega[i] = 5.0 * r(rng);
    v.segment<3>(kDofs * i) = rod.state.v[i];
    v[kDofs * i + 3] = rod.state.omega[i];
  }
  const double h = 0.01;
  const Eigen::MatrixXd m = ConsistentMass(rod.model);
  const Eigen::VectorXd expected = m * v / h;
  const Eigen::VectorXd f = DenseF(Assemble(rod, h, Vec3::Zero()));
  EXPECT_LT((f - expected).cwiseAbs().maxCoeff(), 1e-10 * expected.cwiseAbs().maxCoeff());
  const double kinetic = 0.5 * v.dot(m * v);
  EXPECT_NEAR(RodKineticEnergy(rod.model, rod.state), kinetic, 1e-12 * kinetic);
}

// A point force at u is spread over the four control points by the basis values.
TEST(RodDynamicsTest, ExternalForceSpreadByBasis) {
  const TestRod rod = StraightRod(10, 1.0, Soft());
  const Vec3 f1(0.0, 2.0, -1.0), f2(3.0, 0.0, 0.5);
  const RodSystem base = Assemble(rod, 0.01, Vec3::Zero());
  const RodSystem sys = Assemble(rod, 0.01, Vec3::Zero(), {{0.37, f1}, {1.0, f2}});
  std::vector<Vec3> expected(10, Vec3::Zero());
  for (const auto& [u, f] : {std::pair{0.37, f1}, std::pair{1.0, f2}}) {
    const SplineSample s = rod.model.spline().Sample(u);
    for (int a = 0; a < 4; ++a) expected[s.first + a] += s.b[a] * f;
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_LT((sys.rhs[i].head<3>() - base.rhs[i].head<3>() - expected[i]).norm(), 1e-14)
        << i;
    EXPECT_EQ(sys.rhs[i][3], base.rhs[i][3]);
  }
  // The tip force lands on the last control point alone (clamped end).
  EXPECT_LT((sys.rhs[9].head<3>() - base.rhs[9].head<3>() - f2).norm(), 1e-14);
}

}  // namespace
}  // namespace ligature
