// A corotational cantilever bent by its own weight against Euler-Bernoulli beam theory: a
// beam of length L and square section a x a, clamped at x = 0, under its weight w = rho g a^2
// per metre, deflects at the free end by w L^4 / (8 E I), I = a^4 / 12. The load is small
// (tip deflection 0.15 % of L), where corotational elasticity is linear elasticity.
//
// Linear tets are too stiff in bending on coarse meshes and converge at second order in the
// cell size. The beam is solved on two meshes, the second with every cell halved; the
// Richardson extrapolation of the two (the mesh-converged deflection) must be within 3 % of
// the beam theory, and the finer mesh's own error must be a quarter of the coarser one's,
// give or take, as second-order convergence predicts. Shear (Timoshenko) adds
// E a^2 / (3 kappa G L^2) = 0.8 % to the deflection of this beam (nu = 0, L / a = 10).

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "server/model/soft/fem_corotational.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

constexpr double kLength = 1.0;
constexpr double kSide = 0.1;
constexpr double kYoung = 1.0e9;
constexpr double kDensity = 1000.0;
constexpr double kGravity = 9.81;

// Euler-Bernoulli: w L^4 / (8 E I), downwards.
double BeamTheoryDeflection() {
  const double w = kDensity * kGravity * kSide * kSide;
  const double inertia = std::pow(kSide, 4) / 12.0;
  return w * std::pow(kLength, 4) / (8.0 * kYoung * inertia);
}

// The static tip deflection (mean drop of the x = L face) on a mesh of `along` cells along
// the beam and `across` cells each way across it. Steps of one second (about a hundred
// times the first bending period) under implicit Euler reach the static equilibrium within
// a few steps; stepping goes on until the tip stops moving.
double TipDeflection(int along, int across) {
  TetMesh mesh = MakeBoxMesh(Vec3(0.5 * kLength, 0.5 * kSide, 0.5 * kSide), along, across, across);
  for (Vec3& v : mesh.vertices) v.x() += 0.5 * kLength;
  std::vector<int> clamped, tip;
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    if (mesh.vertices[i].x() < 1e-9) clamped.push_back(static_cast<int>(i));
    if (mesh.vertices[i].x() > kLength - 1e-9) tip.push_back(static_cast<int>(i));
  }
  FemMaterial material;
  material.young = kYoung;
  material.poisson = 0.0;
  material.density = kDensity;
  absl::StatusOr<CorotationalModel> model = CorotationalModel::Make(mesh, material, clamped);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return NAN;
  FemState state = RestFemState(mesh);
  CorotationalSystem system;
  double deflection = 0.0;
  for (int step = 0; step < 30; ++step) {
    const absl::Status stepped = model->Step(1.0, Vec3(0.0, -kGravity, 0.0), {}, &system, &state);
    EXPECT_TRUE(stepped.ok()) << stepped;
    if (!stepped.ok()) return NAN;
    double drop = 0.0;
    for (const int i : tip) drop += mesh.vertices[i].y() - state.x[i].y();
    drop /= static_cast<double>(tip.size());
    const bool settled = std::abs(drop - deflection) < 1e-9 * std::abs(drop);
    deflection = drop;
    if (settled) return deflection;
  }
  ADD_FAILURE() << "the tip did not settle: " << deflection;
  return deflection;
}

TEST(FemCantilever, CorotationalTipDeflectionConvergesToEulerBernoulli) {
  const double theory = BeamTheoryDeflection();
  const double coarse = TipDeflection(40, 4);
  const double fine = TipDeflection(80, 8);
  const double converged = fine + (fine - coarse) / 3.0;  // Richardson, second order
  EXPECT_NEAR(converged, theory, 0.03 * theory)
      << "coarse " << coarse << ", fine " << fine << ", theory " << theory;
  // Second-order convergence: halving the cells cuts the error by about four (the reference
  // here is the beam theory with its shear correction).
  // (E / G = 2 at nu = 0, shear coefficient 5/6 for a rectangle).
  const double timoshenko =
      theory * (1.0 + 2.0 * kSide * kSide / (3.0 * (5.0 / 6.0) * kLength * kLength));
  const double reduction = (timoshenko - coarse) / (timoshenko - fine);
  EXPECT_GT(reduction, 3.0) << "coarse " << coarse << ", fine " << fine;
  EXPECT_LT(reduction, 5.0) << "coarse " << coarse << ", fine " << fine;
  // Each mesh is stiffer than the beam, never softer.
  EXPECT_LT(coarse, fine);
  EXPECT_LT(fine, timoshenko);
}

}  // namespace
}  // namespace ligature
