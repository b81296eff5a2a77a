// Integrators for the mass-point model: free fall against the closed forms, the generic
// form of eq. 1 against the actual step, the force coefficient c_i (a force on one point
// moves only that point, by c_i F), a chain hanging from a held point, the period of a
// spring-mass oscillator, and the energy behaviour of explicit and implicit Euler.

#include "server/model/soft/integrators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "server/constraint/soft/local_constraints.h"
#include "server/math/types.h"
#include "server/model/soft/mass_point_model.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

const Vec3 kGravity(0.0, 0.0, -9.81);

std::string Name(const testing::TestParamInfo<Integrator>& info) {
  return std::string(IntegratorName(info.param));
}

MassPointModel BoxModel() {
  MassPointMaterial material;
  material.density = 1000.0;
  material.distance_stiffness = 200.0;
  material.volume_stiffness = 200.0;
  material.damping = 1.0;
  absl::StatusOr<MassPointModel> model =
      MassPointModel::FromTetMesh(MakeBoxMesh(Vec3(0.5, 0.5, 0.5), 2, 2, 2), material);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

class IntegratorTest : public testing::TestWithParam<Integrator> {};

// A rigidly falling box (no elastic force arises) against x0 + v0 t + g t^2 / 2: exact for
// midpoint, RK2 and Verlet; the Euler schemes follow their own closed forms exactly,
// which differ from the true motion by h g t / 2 (first order).
TEST_P(IntegratorTest, FreeFall) {
  const Integrator integrator = GetParam();
  const MassPointModel model = BoxModel();
  MassPointState s = RestState(model);
  const Vec3 v0(1.0, -0.5, 2.0);
  for (Vec3& v : s.v) v = v0;
  const double h = 0.01;
  const int steps = 100;
  for (int k = 0; k < steps; ++k) ASSERT_TRUE(Step(integrator, model, kGravity, h, {}, &s).ok());
  const double t = steps * h;
  const double n = steps;
  double factor = n * n;  // h^2 g * factor / 2 is the gravity displacement
  bool exact = true;
  if (integrator == Integrator::kExplicitEuler) {
    factor = n * (n - 1.0);
    exact = false;
  } else if (integrator == Integrator::kSemiImplicitEuler ||
             integrator == Integrator::kImplicitEuler) {
    factor = n * (n + 1.0);
    exact = false;
  }
  for (int i = 0; i < model.points(); ++i) {
    const Vec3 x0 = model.rest_positions()[i];
    const Vec3 scheme = x0 + v0 * t + 0.5 * h * h * factor * kGravity;
    const Vec3 truth = x0 + v0 * t + 0.5 * t * t * kGravity;
    EXPECT_LT((s.x[i] - scheme).norm(), 1e-9) << i;
    if (exact) {
      EXPECT_LT((s.x[i] - truth).norm(), 1e-9) << i;
    } else {
      const double error = (s.x[i] - truth).norm();
      EXPECT_NEAR(error, 0.5 * h * t * kGravity.norm(), 1e-9) << i;  // O(h)
    }
    // Velocities: v0 + g t; Verlet's (eq. 2) is the central difference at t - h.
    const double tv = integrator == Integrator::kVerlet ? t - h : t;
    EXPECT_LT((s.v[i] - (v0 + tv * kGravity)).norm(), 1e-9) << i;
  }
}

// Eq. 1 with the forms of eqs. 5, 7-10 reproduces the step for a point under a constant
// force (J_F = 0, where all the forms are exact).
TEST_P(IntegratorTest, GenericFormMatchesStep) {
  const Integrator integrator = GetParam();
  const double mass = 2.5, h = 0.02;
  MassPointMaterial material;
  absl::StatusOr<MassPointModel> model =
      MassPointModel::FromParts({Vec3(0.1, 0.2, 0.3)}, {mass}, {}, {}, material);
  ASSERT_TRUE(model.ok());
  MassPointState s = RestState(*model);
  s.v[0] = Vec3(0.4, -0.3, 1.2);
  const std::vector<Vec3> external = {Vec3(3.0, -7.0, 1.0)};
  const Vec3 force = mass * kGravity + external[0];
  // Two steps first so Verlet's x_prev is set.
  for (int k = 0; k < 2; ++k) ASSERT_TRUE(Step(integrator, *model, kGravity, h, external, &s).ok());
  const GenericForm form = MakeGenericForm(integrator, h, mass);
  const Vec6 state = GenericStateVector(integrator, s, 0);
  ASSERT_TRUE(Step(integrator, *model, kGravity, h, external, &s).ok());
  EXPECT_LT((s.x[0] - (form.a * state + form.c * force)).norm(), 1e-12);
  EXPECT_LT((s.v[0] - (form.b * state + form.d * force)).norm(), 1e-12);
  EXPECT_DOUBLE_EQ(form.c, PositionForceCoefficient(integrator, h, mass));
}

// The property the constraints rest on: with the full elastic model deforming, a force on
// one point (constant over the step) moves that point's predicted position by exactly
// ConstraintCoefficient * F and leaves every other point's prediction unchanged.
TEST_P(IntegratorTest, ForceOnOnePointMovesOnlyThatPoint) {
  const Integrator integrator = GetParam();
  const MassPointModel model = BoxModel();
  MassPointState s = RestState(model);
  const double h = 1e-3;
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(Step(integrator, model, kGravity, h, {}, &s).ok());
  const int p = 13;
  std::vector<Vec3> external(model.points(), Vec3::Zero());
  const absl::StatusOr<std::vector<Vec3>> free =
      PredictConstrainedPositions(integrator, model, kGravity, h, external, s);
  external[p] = Vec3(40.0, -25.0, 60.0);
  const absl::StatusOr<std::vector<Vec3>> pushed =
      PredictConstrainedPositions(integrator, model, kGravity, h, external, s);
  ASSERT_TRUE(free.ok() && pushed.ok());
  const double c = ConstraintCoefficient(integrator, h, model.masses()[p]);
  EXPECT_GT(c, 0.0);
  for (int i = 0; i < model.points(); ++i) {
    const Vec3 expected = (*free)[i] + (i == p ? Vec3(c * external[p]) : Vec3::Zero());
    EXPECT_LT(((*pushed)[i] - expected).norm(), 1e-13) << i;
  }
  // For all but explicit Euler the prediction is the next position of a real step.
  if (integrator != Integrator::kExplicitEuler) {
    MassPointState next = s;
    ASSERT_TRUE(Step(integrator, model, kGravity, h, external, &next).ok());
    for (int i = 0; i < model.points(); ++i) EXPECT_EQ(next.x[i], (*pushed)[i]);
  }
}

// A vertical chain of four springs (k_d = 100 N, l0 = 0.1 m, 0.1 kg points, critically
// damped) hanging from a held top point comes to its static stretch: each spring carries
// the weight of the points below it, so its strain is g m (points below) / k_d. The held
// point never moves, whatever force is put on it.
TEST_P(IntegratorTest, HeldPointCarriesAHangingChain) {
  const Integrator integrator = GetParam();
  constexpr int kPoints = 5;
  constexpr double kMass = 0.1, kRest = 0.1;
  MassPointMaterial material;
  material.distance_stiffness = 100.0;
  material.volume_stiffness = 0.0;
  material.damping = 20.0;
  std::vector<Vec3> rest;
  std::vector<std::array<int, 2>> edges;
  for (int i = 0; i < kPoints; ++i) {
    rest.emplace_back(0.0, 0.0, -kRest * i);
    if (i > 0) edges.push_back({i - 1, i});
  }
  const std::vector<int> held = {0};
  absl::StatusOr<MassPointModel> model = MassPointModel::FromParts(
      rest, std::vector<double>(kPoints, kMass), edges, {}, material, held);
  ASSERT_TRUE(model.ok()) << model.status();
  MassPointState s = RestState(*model);
  std::vector<Vec3> external(kPoints, Vec3::Zero());
  external[0] = Vec3(3.0, -2.0, 5.0);
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(Step(integrator, *model, kGravity, 1e-3, external, &s).ok());
    ASSERT_EQ(s.x[0], rest[0]);
    ASSERT_EQ(s.v[0], Vec3::Zero());
  }
  for (int i = 1; i < kPoints; ++i) {
    const double strain = (s.x[i] - s.x[i - 1]).norm() / kRest - 1.0;
    const double below = kPoints - i;
    EXPECT_NEAR(strain, 9.81 * kMass * below / material.distance_stiffness, 1e-9) << i;
  }
}

// Two unit masses on a spring (k = k_d / l0), the first held by a nail; the second
// oscillates along the spring with angular frequency sqrt(k / m).
struct Oscillator {
  MassPointModel model;
  MassPointState state;
  LocalConstraintSet nail{2};
  double k = 0.0, m = 0.0;
};

Oscillator MakeOscillator(double amplitude) {
  MassPointMaterial material;
  material.distance_stiffness = 100.0;
  material.volume_stiffness = 0.0;
  absl::StatusOr<MassPointModel> model = MassPointModel::FromParts(
      {Vec3::Zero(), Vec3(1.0, 0.0, 0.0)}, {1.0, 1.0}, {{0, 1}}, {}, material);
  EXPECT_TRUE(model.ok());
  Oscillator o{*std::move(model), {}, LocalConstraintSet(2), 100.0, 1.0};
  o.state = RestState(o.model);
  o.state.x[1].x() += amplitude;
  EXPECT_TRUE(o.nail.AddNail(0, Vec3::Zero()).ok());
  return o;
}

double Energy(const Oscillator& o) {
  return KineticEnergy(o.model, o.state.v) + ElasticEnergy(o.model, o.state.x);
}

class OscillatorPeriodTest : public testing::TestWithParam<Integrator> {};

// Upward zero crossings of the stretch, linearly interpolated, over several periods.
TEST_P(OscillatorPeriodTest, PeriodWithinOnePercent) {
  const Integrator integrator = GetParam();
  Oscillator o = MakeOscillator(0.05);
  const double period = 2.0 * std::numbers::pi * std::sqrt(o.m / o.k);
  const double h = period / 200.0;
  std::vector<double> crossings;
  double previous = o.state.x[1].x() - 1.0;
  for (int k = 0; k < 2000 && crossings.size() < 5; ++k) {
    ASSERT_TRUE(StepWithConstraints(integrator, o.model, Vec3::Zero(), h, k * h, o.nail,
                                    &o.state).ok());
    ASSERT_LT(o.state.x[0].norm(), 1e-12);
    const double stretch = o.state.x[1].x() - 1.0;
    if (previous < 0.0 && stretch >= 0.0) {
      crossings.push_back((k + previous / (previous - stretch)) * h);
    }
    previous = stretch;
  }
  ASSERT_EQ(crossings.size(), 5u);
  const double measured = (crossings.back() - crossings.front()) / 4.0;
  EXPECT_NEAR(measured / period, 1.0, 0.01);
}

INSTANTIATE_TEST_SUITE_P(SecondOrder, OscillatorPeriodTest,
                         testing::Values(Integrator::kMidpoint, Integrator::kRungeKutta2,
                                         Integrator::kVerlet,
                                         Integrator::kSemiImplicitEuler),
                         Name);

// Explicit Euler gains energy on an undamped oscillator (by 1 + (w h)^2 per step), implicit
// Euler loses it; with w h = 0.1 over 200 steps the factors are about 7 and 1/7.
TEST(IntegratorEnergyTest, ExplicitEulerGrowsImplicitEulerDecays) {
  for (Integrator integrator : {Integrator::kExplicitEuler, Integrator::kImplicitEuler}) {
    Oscillator o = MakeOscillator(0.05);
    const double h = 0.1 / std::sqrt(o.k / o.m);
    const double e0 = Energy(o);
    for (int k = 0; k < 200; ++k) {
      ASSERT_TRUE(StepWithConstraints(integrator, o.model, Vec3::Zero(), h, k * h, o.nail,
                                      &o.state).ok());
    }
    const double ratio = Energy(o) / e0;
    if (integrator == Integrator::kExplicitEuler) {
      EXPECT_GT(ratio, 3.0);
    } else {
      EXPECT_LT(ratio, 0.3);
    }
  }
}

TEST(IntegratorErrorTest, RejectsBadInput) {
  const MassPointModel model = BoxModel();
  MassPointState s = RestState(model);
  EXPECT_FALSE(Step(Integrator::kMidpoint, model, kGravity, 0.0, {}, &s).ok());
  EXPECT_FALSE(Step(Integrator::kMidpoint, model, kGravity, -1.0, {}, &s).ok());
  const std::vector<Vec3> wrong(3, Vec3::Zero());
  EXPECT_FALSE(Step(Integrator::kMidpoint, model, kGravity, 0.01, wrong, &s).ok());
  s.v.pop_back();
  EXPECT_FALSE(Step(Integrator::kVerlet, model, kGravity, 0.01, {}, &s).ok());
}

INSTANTIATE_TEST_SUITE_P(All, IntegratorTest, testing::ValuesIn(kAllIntegrators), Name);

}  // namespace
}  // namespace ligature
