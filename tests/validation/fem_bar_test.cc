// A tetrahedralized bar, held at one end and released from a uniform 1% stretch, vibrates
// at its first axial mode: a fixed-free bar's tip returns every 4 L / c, c = sqrt(E / rho)
// (nu = 0, so there is no lateral coupling). Explicit StVK and implicit corotational FEM
// are both checked against that period.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "server/model/soft/fem_corotational.h"
#include "server/model/soft/fem_stvk.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

constexpr double kLength = 1.0;
constexpr double kYoung = 1.0e5;
constexpr double kDensity = 1000.0;
constexpr double kStretch = 0.01;

struct Bar {
  TetMesh mesh;
  std::vector<int> fixed;  // the x = 0 end
  std::vector<int> tip;    // the x = L end
};

Bar MakeBar() {
  Bar bar;
  bar.mesh = MakeBoxMesh(Vec3(0.5 * kLength, 0.05, 0.05), 20, 2, 2);
  for (Vec3& v : bar.mesh.vertices) v.x() += 0.5 * kLength;
  for (size_t i = 0; i < bar.mesh.vertices.size(); ++i) {
    if (bar.mesh.vertices[i].x() < 1e-9) bar.fixed.push_back(static_cast<int>(i));
    if (bar.mesh.vertices[i].x() > kLength - 1e-9) bar.tip.push_back(static_cast<int>(i));
  }
  return bar;
}

FemMaterial Material() {
  FemMaterial m;
  m.young = kYoung;
  m.poisson = 0.0;
  m.density = kDensity;
  return m;
}

// The tip's mean axial displacement.
double TipDisplacement(const Bar& bar, const FemState& state) {
  double sum = 0.0;
  for (const int i : bar.tip) sum += state.x[i].x() - bar.mesh.vertices[i].x();
  return sum / bar.tip.size();
}

// Times (s) at which the tip's displacement crosses zero downwards, from a run of `steps`
// steps of h; `step` advances the state by one step.
template <typename StepFn>
std::vector<double> DownCrossings(const Bar& bar, FemState* state, double h, int steps,
                                  StepFn step) {
  std::vector<double> crossings;
  double previous = TipDisplacement(bar, *state);
  for (int k = 1; k <= steps; ++k) {
    step(state);
    const double now = TipDisplacement(bar, *state);
    if (previous > 0.0 && now <= 0.0) {
      crossings.push_back(h * (k - 1 + previous / (previous - now)));  // interpolated
    }
    previous = now;
  }
  return crossings;
}

FemState Stretched(const Bar& bar) {
  FemState state = RestFemState(bar.mesh);
  for (Vec3& x : state.x) x.x() *= 1.0 + kStretch;
  return state;
}

double ExpectedPeriod() { return 4.0 * kLength / std::sqrt(kYoung / kDensity); }

TEST(FemBar, ExplicitStVKVibratesAtTheFirstAxialMode) {
  const Bar bar = MakeBar();
  absl::StatusOr<StVKModel> model = StVKModel::Make(bar.mesh, Material(), bar.fixed);
  ASSERT_TRUE(model.ok()) << model.status();
  const double h = 0.25 * model->StableTimeStep();
  FemState state = Stretched(bar);
  const int steps = static_cast<int>(2.2 * ExpectedPeriod() / h);
  const std::vector<double> crossings = DownCrossings(
      bar, &state, h, steps, [&](FemState* s) { model->Step(h, Vec3::Zero(), {}, s); });
  ASSERT_GE(crossings.size(), 2u);
  const double period = crossings[1] - crossings[0];
  EXPECT_NEAR(period, ExpectedPeriod(), 0.02 * ExpectedPeriod()) << "period " << period;
}

TEST(FemBar, ImplicitCorotationalVibratesAtTheFirstAxialMode) {
  const Bar bar = MakeBar();
  absl::StatusOr<CorotationalModel> model =
      CorotationalModel::Make(bar.mesh, Material(), bar.fixed);
  ASSERT_TRUE(model.ok()) << model.status();
  // Small steps: backward Euler lengthens the period by about (omega h)^2 / 2 (relative)
  // and damps the motion.
  const double h = ExpectedPeriod() / 400.0;
  FemState state = Stretched(bar);
  CorotationalSystem system;
  const int steps = static_cast<int>(2.2 * ExpectedPeriod() / h);
  const std::vector<double> crossings =
      DownCrossings(bar, &state, h, steps, [&](FemState* s) {
        ASSERT_TRUE(model->Step(h, Vec3::Zero(), {}, &system, s).ok());
      });
  ASSERT_GE(crossings.size(), 2u);
  const double period = crossings[1] - crossings[0];
  EXPECT_NEAR(period, ExpectedPeriod(), 0.02 * ExpectedPeriod()) << "period " << period;
}

}  // namespace
}  // namespace ligature
