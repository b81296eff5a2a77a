// Cutting by separating tets: a box cut through (two pieces, volume and mass kept, tets
// positive, boundary closed and grown by the cut faces), cut part-way (one piece, new
// faces), the geometric criterion on the box surface, the physical criterion on stretched
// and compressed tets and its dependence on damage and sharpness, the local move of a cut
// vertex, and bad inputs.

#include "server/model/soft/cutting.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"
#include "tests/unit/model/soft/surface_checks.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::ligature::testing::BoundaryClosed;

double TotalMass(const FemRest& rest) {
  return std::accumulate(rest.mass.begin(), rest.mass.end(), 0.0);
}

// Every tet strictly positive.
bool AllTetsPositive(const TetMesh& mesh) {
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    if (!(TetVolume(mesh, t) > 1e-12)) return false;
  }
  return true;
}

// The box [-2, 2] x [-1, 1] x [-1, 1] in 4 x 2 x 2 unit cells: x = 0 is a grid plane.
TetMesh Box() { return MakeBoxMesh(Vec3(2.0, 1.0, 1.0), 4, 2, 2); }

// A blade in the plane x = 0 running along y above the box, reaching down to z = bottom.
BladeSweep BladeDownTo(double bottom) {
  return {Vec3(0.0, -2.0, 1.5), Vec3(0.0, 2.0, 1.5), Vec3(0.0, 0.0, bottom - 1.5)};
}

// Separates the box along x = 0 within the tets of `blade`, and brings state and rest
// along; checks the invariants any cut keeps.
struct CutOutcome {
  TetMesh mesh;
  SeparationResult result;
  int boundary_before = 0;
  int boundary_after = 0;
};

CutOutcome CutBox(const BladeSweep& blade) {
  CutOutcome out;
  out.mesh = Box();
  const FemMaterial material;
  auto rest = MakeFemRest(out.mesh, material, {});
  EXPECT_TRUE(rest.ok()) << rest.status();
  FemState state = RestFemState(out.mesh);
  for (size_t i = 0; i < state.v.size(); ++i) state.v[i] = Vec3(0.1 * i, 0.0, 1.0);
  const double volume_before = MeshVolume(out.mesh);
  const double mass_before = TotalMass(*rest);
  const size_t tets_before = out.mesh.tets.size();
  out.boundary_before = static_cast<int>(ExtractBoundary(out.mesh).triangles.size());

  auto tets = SelectBladeTets(out.mesh, state.x, blade);
  EXPECT_TRUE(tets.ok()) << tets.status();
  auto result = SeparateAlongPlane({Vec3::Zero(), Vec3::UnitX()}, *tets, state.x, &out.mesh);
  EXPECT_TRUE(result.ok()) << result.status();
  out.result = *result;
  EXPECT_TRUE(ExtendStateAfterSplit(result->splits, &state).ok());
  EXPECT_TRUE(UpdateRestAfterSplit(out.mesh, material, result->splits, &*rest).ok());

  // No tet added or removed; volume and mass kept; duplicates carry the original's state.
  EXPECT_EQ(out.mesh.tets.size(), tets_before);
  EXPECT_NEAR(MeshVolume(out.mesh), volume_before, 1e-12 * volume_before);
  EXPECT_NEAR(TotalMass(*rest), mass_before, 1e-12 * mass_before);
  EXPECT_EQ(state.x.size(), out.mesh.vertices.size());
  EXPECT_EQ(rest->mass.size(), out.mesh.vertices.size());
  for (const VertexSplit& s : result->splits) {
    EXPECT_EQ(state.x[s.duplicate], state.x[s.original]);
    EXPECT_EQ(state.v[s.duplicate], state.v[s.original]);
    EXPECT_GT(rest->mass[s.duplicate], 0.0);
    EXPECT_GT(rest->mass[s.original], 0.0);
  }
  // The incremental rest data equals rest data made afresh for the cut mesh.
  auto fresh = MakeFemRest(out.mesh, material, {});
  EXPECT_TRUE(fresh.ok()) << fresh.status();
  for (size_t v = 0; v < out.mesh.vertices.size(); ++v) {
    EXPECT_NEAR(rest->mass[v], fresh->mass[v], 1e-12 * mass_before) << v;
  }
  EXPECT_TRUE(AllTetsPositive(out.mesh));
  const SurfaceMesh after = ExtractBoundary(out.mesh);
  EXPECT_TRUE(BoundaryClosed(after));
  out.boundary_after = static_cast<int>(after.triangles.size());
  return out;
}

TEST(CuttingTest, FullCutSeparatesTheBoxIntoTwoPieces) {
  const CutOutcome cut = CutBox(BladeDownTo(-1.5));
  EXPECT_EQ(CountPieces(cut.mesh), 2);
  // The 3 x 3 grid vertices on x = 0 are all split; the 2 x 2 cells of x = 0 are 8
  // triangles, each now a boundary face on both sides.
  EXPECT_EQ(cut.result.splits.size(), 9u);
  EXPECT_EQ(cut.result.cut_faces, 8);
  EXPECT_EQ(cut.boundary_after, cut.boundary_before + 16);
  // The positive side uses the duplicates wherever it touches x = 0; the negative side
  // keeps the originals.
  for (const auto& tet : cut.mesh.tets) {
    double centroid = 0.0;
    bool touches = false, uses_duplicate = false;
    for (int v : tet) {
      centroid += 0.25 * cut.mesh.vertices[v].x();
      touches |= cut.mesh.vertices[v].x() == 0.0;
      for (const VertexSplit& s : cut.result.splits) uses_duplicate |= v == s.duplicate;
    }
    if (centroid > 0.0) {
      EXPECT_EQ(uses_duplicate, touches);
    }
    if (centroid < 0.0) {
      EXPECT_FALSE(uses_duplicate);
    }
  }
}

TEST(CuttingTest, PartialCutOpensFacesButKeepsOnePiece) {
  // The blade reaches z = 0.5: it passes the upper layer of cells only.
  const CutOutcome cut = CutBox(BladeDownTo(0.5));
  EXPECT_EQ(CountPieces(cut.mesh), 1);
  // Only the top row of x = 0 vertices (z = 1) is split; z = 0 is the cut's front.
  EXPECT_EQ(cut.result.splits.size(), 3u);
  for (const VertexSplit& s : cut.result.splits) {
    EXPECT_DOUBLE_EQ(cut.mesh.vertices[s.original].z(), 1.0);
  }
  EXPECT_EQ(cut.result.cut_faces, 4);
  EXPECT_EQ(cut.boundary_after, cut.boundary_before + 8);
}

TEST(CuttingTest, BladeOutsideTheBoxCutsNothing) {
  // The blade's plane crosses the box, but the blade itself is above it.
  const CutOutcome cut = CutBox(BladeSweep{Vec3(0.0, -2.0, 3.0), Vec3(0.0, 2.0, 3.0),
                                           Vec3(0.0, 0.0, -1.0)});
  EXPECT_TRUE(cut.result.splits.empty());
  EXPECT_EQ(cut.boundary_after, cut.boundary_before);
}

TEST(CuttingTest, GeometricCriterion) {
  const TetMesh mesh = Box();
  const SurfaceMesh surface = ExtractBoundary(mesh);
  const std::vector<Vec3>& x = mesh.vertices;
  CuttingParams params;
  params.alpha = 0.3;
  auto vertex_at = [&x](const Vec3& p) {
    for (int v = 0; v < static_cast<int>(x.size()); ++v) {
      if ((x[v] - p).norm() < 1e-12) return v;
    }
    return -1;
  };

  // Moving within the neighbourhood of one vertex: same closest vertex, no attempt.
  auto same = DetectCuttingAttempt(x, surface, Vec3(0.1, 0.1, 1.0), Vec3(0.3, 0.2, 1.0),
                                   params);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_FALSE(same->attempt);
  EXPECT_EQ(same->v0, vertex_at(Vec3(0, 0, 1)));
  EXPECT_EQ(same->v1, same->v0);

  // A small move across the midpoint of an edge: the closest vertex changes but the
  // contact is far from the new vertex (0.46 > r = 0.3): no attempt.
  auto midpoint = DetectCuttingAttempt(x, surface, Vec3(0.45, 0.1, 1.0),
                                       Vec3(0.55, 0.1, 1.0), params);
  ASSERT_TRUE(midpoint.ok());
  EXPECT_NE(midpoint->v0, midpoint->v1);
  EXPECT_FALSE(midpoint->attempt);

  // Moving onto the next vertex along x: an attempt, v0 -> v1 -> v2 straight along x.
  auto cut = DetectCuttingAttempt(x, surface, Vec3(0.1, 0.1, 1.0), Vec3(0.9, 0.05, 1.0),
                                  params);
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->attempt);
  EXPECT_EQ(cut->v0, vertex_at(Vec3(0, 0, 1)));
  EXPECT_EQ(cut->v1, vertex_at(Vec3(1, 0, 1)));
  EXPECT_EQ(cut->v2, vertex_at(Vec3(2, 0, 1)));
  EXPECT_NEAR(cut->radius, 0.3, 1e-12);
  EXPECT_NEAR(cut->normal.z(), 1.0, 1e-12);

  // Measured by the mean surface edge length at v1 instead (unit axis edges and some
  // sqrt(2) diagonals), the radius is larger than alpha * |v1 - v0| = 0.3.
  params.scale = NeighbourhoodScale::kMeanEdgeLength;
  auto mean_edge = DetectCuttingAttempt(x, surface, Vec3(0.1, 0.1, 1.0),
                                        Vec3(0.9, 0.05, 1.0), params);
  ASSERT_TRUE(mean_edge.ok());
  EXPECT_TRUE(mean_edge->attempt);
  EXPECT_GT(mean_edge->radius, 0.3 + 1e-3);
  EXPECT_LT(mean_edge->radius, 0.3 * std::sqrt(2.0));
  params.scale = NeighbourhoodScale::kClosestVertexDistance;

  // A smaller neighbourhood rejects the same move.
  params.alpha = 0.05;
  auto tight = DetectCuttingAttempt(x, surface, Vec3(0.1, 0.1, 1.0), Vec3(0.9, 0.05, 1.0),
                                    params);
  ASSERT_TRUE(tight.ok());
  EXPECT_FALSE(tight->attempt);

  // The cut plane contains the line v0 -> v1 and the surface normal: its normal is +-y.
  auto plane = CutPlaneFromAttempt(x, *cut);
  ASSERT_TRUE(plane.ok()) << plane.status();
  EXPECT_NEAR(std::abs(plane->normal.y()), 1.0, 1e-12);
  EXPECT_FALSE(CutPlaneFromAttempt(x, *same).ok());
}

TEST(CuttingTest, PhysicalCriterionUnstressedAndStretched) {
  TetMesh mesh = Box();
  FemMaterial material;  // E = 1e5 Pa, nu = 0.3
  const LameParameters lame = Lame(material);
  auto rest = MakeFemRest(mesh, material, {});
  ASSERT_TRUE(rest.ok());
  CuttingParams params;
  params.toughness = 5000.0;

  auto at_rest = TetCuttingStress(mesh, *rest, lame, mesh.vertices, 0, params);
  ASSERT_TRUE(at_rest.ok()) << at_rest.status();
  EXPECT_NEAR(at_rest->sigma_c, 0.0, 1e-9);
  EXPECT_FALSE(CutsThrough(*at_rest, params));

  // 20 % stretch along x: E_xx = 0.22, principal S = ((lambda + 2 mu), lambda, lambda) E_xx,
  // so tau_max = mu E_xx and sigma_c = min(sigma_max, tau_max) = mu E_xx ~ 8.5 kPa.
  std::vector<Vec3> stretched = mesh.vertices;
  for (Vec3& p : stretched) p.x() *= 1.2;
  auto pulled = TetCuttingStress(mesh, *rest, lame, stretched, 7, params);
  ASSERT_TRUE(pulled.ok());
  EXPECT_NEAR(pulled->sigma_max, (lame.lambda + 2 * lame.mu) * 0.22, 1e-6 * lame.mu);
  EXPECT_NEAR(pulled->tau_max, lame.mu * 0.22, 1e-6 * lame.mu);
  EXPECT_NEAR(pulled->sigma_c, lame.mu * 0.22, 1e-6 * lame.mu);
  EXPECT_TRUE(CutsThrough(*pulled, params));

  // A tougher material resists the same stretch...
  params.toughness = 20000.0;
  EXPECT_FALSE(CutsThrough(EvaluateCuttingStress(CuttingStressTensor(
                               Vec3(1.2, 1.0, 1.0).asDiagonal(), lame), params),
                           params));
}

TEST(CuttingTest, DamageAndSharpnessLowerTheThreshold) {
  const LameParameters lame = Lame(FemMaterial{});
  const Mat3 stress = CuttingStressTensor(Vec3(1.2, 1.0, 1.0).asDiagonal(), lame);
  CuttingParams params;
  params.toughness = 20000.0;  // above mu E_xx ~ 8.5 kPa
  const CuttingStress intact = EvaluateCuttingStress(stress, params);
  EXPECT_FALSE(CutsThrough(intact, params));

  // sigma_c scales as 1 / zeta: a damaged area (zeta = 0.3) fails under the same load.
  params.zeta = 0.3;
  const CuttingStress damaged = EvaluateCuttingStress(stress, params);
  EXPECT_NEAR(damaged.sigma_c, intact.sigma_c / 0.3, 1e-9 * intact.sigma_c);
  EXPECT_TRUE(CutsThrough(damaged, params));

  // sigma_c scales as 1 / kappa: a sharper blade (smaller kappa) fails it too.
  params.zeta = 1.0;
  params.kappa = 0.3;
  const CuttingStress sharp = EvaluateCuttingStress(stress, params);
  EXPECT_NEAR(sharp.sigma_c, intact.sigma_c / 0.3, 1e-9 * intact.sigma_c);
  EXPECT_TRUE(CutsThrough(sharp, params));
  // ... and a blunter one needs more.
  params.kappa = 2.0;
  EXPECT_LT(EvaluateCuttingStress(stress, params).sigma_c, intact.sigma_c);
}

TEST(CuttingTest, CompressionCutsOnlyWhenEitherModeSuffices) {
  const LameParameters lame = Lame(FemMaterial{});
  const Mat3 stress = CuttingStressTensor(Vec3(0.8, 1.0, 1.0).asDiagonal(), lame);
  CuttingParams params;
  params.toughness = 1000.0;
  // Under compression every principal stress is negative: min(sigma_max, tau_max) < 0.
  const CuttingStress as_printed = EvaluateCuttingStress(stress, params);
  EXPECT_LT(as_printed.sigma_max, 0.0);
  EXPECT_FALSE(CutsThrough(as_printed, params));
  // With max, the shear (mu |E_xx| ~ 6.9 kPa) cuts.
  params.combination = StressCombination::kMax;
  const CuttingStress either = EvaluateCuttingStress(stress, params);
  EXPECT_NEAR(either.sigma_c, lame.mu * 0.18, 1e-6 * lame.mu);
  EXPECT_TRUE(CutsThrough(either, params));
}

TEST(CuttingTest, MovingACutVertexUpdatesRestData) {
  TetMesh mesh = Box();
  const FemMaterial material;
  auto rest = MakeFemRest(mesh, material, {});
  ASSERT_TRUE(rest.ok());
  FemState state = RestFemState(mesh);
  int v = -1;
  for (int i = 0; i < static_cast<int>(mesh.vertices.size()); ++i) {
    if ((mesh.vertices[i] - Vec3(0, 0, 1)).norm() < 1e-12) v = i;
  }
  ASSERT_GE(v, 0);
  const double mass_before = TotalMass(*rest);

  // Too far: it would turn tets inside out; refused, nothing changed.
  const TetMesh mesh_before = mesh;
  EXPECT_EQ(MoveCutVertex(v, Vec3(0.0, 0.0, -0.5), material, &mesh, &*rest, &state).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(mesh.vertices, mesh_before.vertices);
  EXPECT_EQ(state.x[v], Vec3(0, 0, 1));

  // Onto a nearby contact point on the surface: allowed; the body was at rest (F = I),
  // so the rest position follows and the tets at v stay unstrained.
  const Vec3 target(0.2, 0.1, 1.0);
  ASSERT_TRUE(MoveCutVertex(v, target, material, &mesh, &*rest, &state).ok());
  EXPECT_EQ(state.x[v], target);
  EXPECT_NEAR((mesh.vertices[v] - target).norm(), 0.0, 1e-12);
  EXPECT_TRUE(AllTetsPositive(mesh));
  auto fresh = MakeFemRest(mesh, material, {});
  ASSERT_TRUE(fresh.ok());
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    EXPECT_NEAR(rest->volume[t], fresh->volume[t], 1e-12);
    EXPECT_LT((rest->dm_inverse[t] - fresh->dm_inverse[t]).norm(), 1e-9);
    const Mat3 f = ShapeMatrix(state.x, mesh.tets[t]) * rest->dm_inverse[t];
    EXPECT_LT((f - Mat3::Identity()).norm(), 1e-9);
  }
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    EXPECT_NEAR(rest->mass[i], fresh->mass[i], 1e-9 * mass_before);
  }
  // The box's volume is unchanged: the vertex slid within the top face.
  EXPECT_NEAR(TotalMass(*rest), mass_before, 1e-12 * mass_before);
}

TEST(CuttingTest, BadInputsAreRejectedNamingTheField) {
  TetMesh mesh = Box();
  const std::vector<Vec3> x = mesh.vertices;
  const std::vector<int> tets = {0, 1};
  auto zero_normal = SeparateAlongPlane({Vec3::Zero(), Vec3::Zero()}, tets, x, &mesh);
  EXPECT_EQ(zero_normal.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero_normal.status().message()), HasSubstr("plane.normal"));

  const std::vector<int> bad_tets = {0, 100000};
  auto bad_index = SeparateAlongPlane({Vec3::Zero(), Vec3::UnitX()}, bad_tets, x, &mesh);
  EXPECT_THAT(std::string(bad_index.status().message()), HasSubstr("blade_tets[1]"));

  std::vector<Vec3> short_x(x.begin(), x.end() - 1);
  auto bad_x = SeparateAlongPlane({Vec3::Zero(), Vec3::UnitX()}, tets, short_x, &mesh);
  EXPECT_THAT(std::string(bad_x.status().message()), HasSubstr("x: size"));

  CuttingParams params;
  params.zeta = 0.05;
  EXPECT_THAT(std::string(ValidateCuttingParams(params).message()), HasSubstr("zeta"));
  params.zeta = 1.0;
  params.kappa = 0.0;
  EXPECT_THAT(std::string(ValidateCuttingParams(params).message()), HasSubstr("kappa"));

  auto flat_blade = SelectBladeTets(mesh, x, {Vec3::Zero(), Vec3::UnitX(), Vec3::UnitX()});
  EXPECT_EQ(flat_blade.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mesh.vertices.size(), x.size());  // nothing was changed by the failures
}

}  // namespace
}  // namespace ligature
