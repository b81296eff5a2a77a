// FEM material and rest data: Lame parameters, validation naming the field, and the
// checks, masses and volumes of the rest data.

#include "server/model/soft/fem_material.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

// The status is INVALID_ARGUMENT and its message starts with the field's name.
void ExpectInvalid(const absl::Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(std::string(status.message()).rfind(field, 0), 0u) << status;
}

TEST(FemMaterialTest, LameParametersMatchClosedForms) {
  FemMaterial m;
  m.young = 1.0e5;
  m.poisson = 0.25;
  const LameParameters lame = Lame(m);
  EXPECT_NEAR(lame.lambda, 4.0e4, 1e-9);
  EXPECT_NEAR(lame.mu, 4.0e4, 1e-9);
  m.poisson = 0.0;
  EXPECT_NEAR(Lame(m).lambda, 0.0, 1e-12);
  EXPECT_NEAR(Lame(m).mu, 5.0e4, 1e-9);
  // lambda + 2 mu = E (1 - nu) / ((1 + nu)(1 - 2 nu)).
  m.poisson = 0.3;
  m.density = 1200.0;
  EXPECT_NEAR(PWaveSpeed(m), std::sqrt(1.0e5 * 0.7 / (1.3 * 0.4) / 1200.0), 1e-12);
}

TEST(FemMaterialTest, ValidationNamesTheField) {
  EXPECT_TRUE(ValidateFemMaterial(FemMaterial{}).ok());
  FemMaterial m;
  m.young = 0.0;
  ExpectInvalid(ValidateFemMaterial(m), "young");
  m = FemMaterial{};
  m.poisson = 0.5;
  ExpectInvalid(ValidateFemMaterial(m), "poisson");
  m.poisson = -0.1;
  ExpectInvalid(ValidateFemMaterial(m), "poisson");
  m.poisson = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(ValidateFemMaterial(m), "poisson");
  m = FemMaterial{};
  m.density = -1.0;
  ExpectInvalid(ValidateFemMaterial(m), "density");
  m = FemMaterial{};
  m.mass_damping = -1.0;
  ExpectInvalid(ValidateFemMaterial(m), "mass_damping");
  m = FemMaterial{};
  m.stiffness_damping = -1.0;
  ExpectInvalid(ValidateFemMaterial(m), "stiffness_damping");
}

TEST(FemMaterialTest, RestDataOfABox) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.5, 0.25, 0.1), 4, 2, 1);
  FemMaterial m;
  m.density = 800.0;
  const std::vector<int> fixed = {0, 3};
  absl::StatusOr<FemRest> rest = MakeFemRest(mesh, m, fixed);
  ASSERT_TRUE(rest.ok()) << rest.status();
  double volume = 0.0, mass = 0.0;
  for (double v : rest->volume) volume += v;
  for (double v : rest->mass) mass += v;
  EXPECT_NEAR(volume, 1.0 * 0.5 * 0.2, 1e-12);
  EXPECT_NEAR(mass, 800.0 * 0.1, 1e-9);
  EXPECT_NEAR(rest->min_edge, 0.2, 1e-12);
  // Kuhn tets of 0.25 x 0.25 x 0.2 cells: the shortest altitude is that of a face
  // diagonal plane, below the shortest edge.
  EXPECT_LT(rest->min_altitude, rest->min_edge);
  EXPECT_GT(rest->min_altitude, 0.5 * rest->min_edge);
  EXPECT_EQ(rest->fixed[0], 1);
  EXPECT_EQ(rest->fixed[3], 1);
  EXPECT_EQ(rest->fixed[1], 0);
  // Dm^-1 maps the rest shape matrix to the identity.
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const Mat3 f = ShapeMatrix(mesh.vertices, mesh.tets[t]) * rest->dm_inverse[t];
    EXPECT_LT((f - Mat3::Identity()).norm(), 1e-12);
  }
}

TEST(FemMaterialTest, RestDataRejectsBadMeshes) {
  const FemMaterial m;
  TetMesh mesh = MakeBoxMesh(Vec3(1, 1, 1), 1, 1, 1);
  ExpectInvalid(MakeFemRest(TetMesh{}, m, {}).status(), "mesh");
  const std::vector<int> bad_fixed = {100};
  ExpectInvalid(MakeFemRest(mesh, m, bad_fixed).status(), "fixed[0]");

  TetMesh inverted = mesh;
  std::swap(inverted.tets[2][0], inverted.tets[2][1]);
  ExpectInvalid(MakeFemRest(inverted, m, {}).status(), "mesh.tets[2]");

  TetMesh out_of_range = mesh;
  out_of_range.tets[1][3] = 99;
  ExpectInvalid(MakeFemRest(out_of_range, m, {}).status(), "mesh.tets[1]");

  TetMesh unused = mesh;
  unused.vertices.push_back(Vec3(5, 5, 5));
  ExpectInvalid(MakeFemRest(unused, m, {}).status(), "mesh.vertices[8]");

  FemMaterial bad = m;
  bad.young = -1.0;
  ExpectInvalid(MakeFemRest(mesh, bad, {}).status(), "young");
}

}  // namespace
}  // namespace ligature
