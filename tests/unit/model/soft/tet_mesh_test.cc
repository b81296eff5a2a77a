// Tet meshes: volumes and orientation of the box, cylinder and sphere generators, their
// conformity and closed outward boundaries, convergence of the curved shapes' volumes,
// and the Gmsh MSH 4.1 reader on a hand-written cube file and on broken inputs.

#include "server/model/soft/tet_mesh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "server/math/types.h"

namespace ligature {
namespace {

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(std::string(LIGATURE_TEST_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the first occurrence of `from` (which must be present) by `to`.
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Every tet strictly positive (relative to the mean tet volume).
void ExpectAllPositive(const TetMesh& mesh, const std::string& name) {
  ASSERT_FALSE(mesh.tets.empty()) << name;
  const double mean = MeshVolume(mesh) / mesh.tets.size();
  int bad = 0;
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    if (!(TetVolume(mesh, t) > 1e-6 * mean)) ++bad;
  }
  EXPECT_EQ(bad, 0) << name;
}

// Vertex indices in range, each tet's vertices distinct, no two vertices at one place, and
// every face shared by at most two tets. Returns the number of faces with one tet.
int ExpectConforming(const TetMesh& mesh, const std::string& name) {
  std::map<std::array<int, 3>, int> faces;
  for (const std::array<int, 4>& tet : mesh.tets) {
    for (int v : tet) {
      EXPECT_GE(v, 0) << name;
      EXPECT_LT(v, static_cast<int>(mesh.vertices.size())) << name;
    }
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int c = 0, n = 0; c < 4; ++c) {
        if (c != skip) f[n++] = tet[c];
      }
      std::sort(f.begin(), f.end());
      EXPECT_TRUE(f[0] != f[1] && f[1] != f[2]) << name;
      ++faces[f];
    }
  }
  int single = 0, over = 0;
  for (const auto& [face, count] : faces) {
    if (count == 1) ++single;
    if (count > 2) ++over;
  }
  EXPECT_EQ(over, 0) << name << ": faces shared by more than two tets";
  // No duplicate vertices: sort by coordinates and compare neighbours.
  std::vector<Vec3> sorted = mesh.vertices;
  std::sort(sorted.begin(), sorted.end(), [](const Vec3& a, const Vec3& b) {
    return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
  });
  double scale = 0.0;
  for (const Vec3& v : sorted) scale = std::max(scale, v.norm());
  int duplicates = 0;
  for (size_t i = 1; i < sorted.size(); ++i) {
    if ((sorted[i] - sorted[i - 1]).norm() < 1e-9 * scale) ++duplicates;
  }
  EXPECT_EQ(duplicates, 0) << name;
  return single;
}

// The boundary is a closed, consistently oriented surface: each directed edge is used
// once and its reverse once (so each undirected edge by exactly two triangles); each
// triangle is a face of its tet with the tet's fourth vertex behind it; and the divergence
// theorem over the surface gives the mesh volume (so the normals point outward).
void ExpectClosedOutward(const TetMesh& mesh, const SurfaceMesh& surface,
                         const std::string& name) {
  ASSERT_EQ(surface.triangles.size(), surface.triangle_tet.size()) << name;
  std::map<std::pair<int, int>, int> directed;
  double flux = 0.0;
  for (size_t i = 0; i < surface.triangles.size(); ++i) {
    const std::array<int, 3>& tri = surface.triangles[i];
    for (int c = 0; c < 3; ++c) ++directed[{tri[c], tri[(c + 1) % 3]}];
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    const Vec3 area_normal = 0.5 * (b - a).cross(c - a);
    flux += ((a + b + c) / 3.0).dot(area_normal) / 3.0;

    const int t = surface.triangle_tet[i];
    ASSERT_GE(t, 0) << name;
    ASSERT_LT(t, static_cast<int>(mesh.tets.size())) << name;
    const std::array<int, 4>& tet = mesh.tets[t];
    int fourth = -1, shared = 0;
    for (int v : tet) {
      if (std::find(tri.begin(), tri.end(), v) != tri.end()) {
        ++shared;
      } else {
        fourth = v;
      }
    }
    ASSERT_EQ(shared, 3) << name << ": triangle " << i << " is not a face of its tet";
    EXPECT_LT((mesh.vertices[fourth] - a).dot(area_normal), 0.0)
        << name << ": triangle " << i << " points into its tet";
  }
  int unpaired = 0;
  for (const auto& [edge, count] : directed) {
    const auto reverse = directed.find({edge.second, edge.first});
    if (count != 1 || reverse == directed.end() || reverse->second != 1) ++unpaired;
  }
  EXPECT_EQ(unpaired, 0) << name << ": the boundary is not a closed oriented surface";
  const double volume = MeshVolume(mesh);
  EXPECT_NEAR(flux, volume, 1e-9 * std::abs(volume)) << name;
}

// All of the above for a generated mesh; returns the number of boundary triangles.
int ExpectValidMesh(const TetMesh& mesh, const std::string& name) {
  ExpectAllPositive(mesh, name);
  const int single = ExpectConforming(mesh, name);
  const SurfaceMesh surface = ExtractBoundary(mesh);
  EXPECT_EQ(static_cast<int>(surface.triangles.size()), single) << name;
  ExpectClosedOutward(mesh, surface, name);
  return static_cast<int>(surface.triangles.size());
}

TEST(TetMeshTest, SignedVolumeOfOneTet) {
  TetMesh mesh;
  mesh.vertices = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0), Vec3(0, 0, 4)};
  mesh.tets = {{0, 1, 2, 3}, {0, 1, 3, 2}};
  EXPECT_NEAR(TetVolume(mesh, 0), 4.0, 1e-15);
  EXPECT_NEAR(TetVolume(mesh, 1), -4.0, 1e-15);
  EXPECT_NEAR(MeshVolume(mesh), 0.0, 1e-15);
}

TEST(TetMeshTest, BoxVolumeAndOrientation) {
  const struct {
    Vec3 half;
    int nx, ny, nz;
  } cases[] = {{Vec3(0.5, 0.5, 0.5), 1, 1, 1},
               {Vec3(1.0, 2.0, 3.0), 2, 3, 4},
               {Vec3(0.05, 0.2, 0.01), 5, 1, 3},
               {Vec3(3.0, 0.5, 1.5), 7, 6, 5}};
  for (const auto& c : cases) {
    const std::string name = ::testing::PrintToString(
        std::array<int, 3>{c.nx, c.ny, c.nz});
    const TetMesh mesh = MakeBoxMesh(c.half, c.nx, c.ny, c.nz);
    EXPECT_EQ(mesh.vertices.size(), static_cast<size_t>((c.nx + 1) * (c.ny + 1) * (c.nz + 1)))
        << name;
    EXPECT_EQ(mesh.tets.size(), static_cast<size_t>(6 * c.nx * c.ny * c.nz)) << name;
    const double volume = 8.0 * c.half.x() * c.half.y() * c.half.z();
    EXPECT_NEAR(MeshVolume(mesh), volume, 1e-12) << name;
    // Every tet is positive and the Kuhn tets of a cell are equal: 1/6 of the cell.
    const double cell = volume / (c.nx * c.ny * c.nz);
    for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
      ASSERT_NEAR(TetVolume(mesh, t), cell / 6.0, 1e-12 * cell) << name << " tet " << t;
    }
    // The vertices span exactly the box.
    Vec3 lo = mesh.vertices[0], hi = mesh.vertices[0];
    for (const Vec3& v : mesh.vertices) {
      lo = lo.cwiseMin(v);
      hi = hi.cwiseMax(v);
    }
    EXPECT_LT((lo + c.half).norm(), 1e-15) << name;
    EXPECT_LT((hi - c.half).norm(), 1e-15) << name;
  }
}

TEST(TetMeshTest, BoxIsConforming) {
  for (const std::array<int, 3>& n : {std::array<int, 3>{1, 1, 1}, {2, 2, 2}, {3, 1, 2},
                                      {4, 5, 3}}) {
    const std::string name = ::testing::PrintToString(n);
    const TetMesh mesh = MakeBoxMesh(Vec3(1.0, 0.7, 0.4), n[0], n[1], n[2]);
    ExpectAllPositive(mesh, name);
    const int boundary_faces = ExpectConforming(mesh, name);
    // Each of the 4 faces of every tet is interior (counted twice) or on the boundary.
    const int expected_boundary = 4 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]);
    EXPECT_EQ(boundary_faces, expected_boundary) << name;
    EXPECT_EQ((4 * static_cast<int>(mesh.tets.size()) - boundary_faces) % 2, 0) << name;
  }
}

TEST(TetMeshTest, CountsBelowOneAreClamped) {
  const TetMesh box = MakeBoxMesh(Vec3(1, 1, 1), 0, -3, 1);
  EXPECT_EQ(box.tets.size(), 6u);
  const TetMesh cylinder = MakeCylinderMesh(1.0, 1.0, 0, 1, 0);
  EXPECT_EQ(cylinder.tets.size(), 3u * 3u);  // one ring of 3, one layer
  ExpectValidMesh(cylinder, "clamped cylinder");
  const TetMesh sphere = MakeSphereMesh(1.0, 0);
  EXPECT_EQ(sphere.tets.size(), 48u);  // 2 cells per side
}

TEST(BoundaryTest, BoxBoundaryIsClosedAndOutward) {
  for (const std::array<int, 3>& n : {std::array<int, 3>{1, 1, 1}, {2, 3, 4}, {5, 2, 1}}) {
    const std::string name = ::testing::PrintToString(n);
    const Vec3 half(0.3, 1.1, 0.6);
    const TetMesh mesh = MakeBoxMesh(half, n[0], n[1], n[2]);
    const SurfaceMesh surface = ExtractBoundary(mesh);
    EXPECT_EQ(static_cast<int>(surface.triangles.size()),
              2 * 2 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]))
        << name;
    ExpectClosedOutward(mesh, surface, name);
    // Every boundary triangle lies in a face of the box, with the normal of that face.
    for (const std::array<int, 3>& tri : surface.triangles) {
      const Vec3& a = mesh.vertices[tri[0]];
      const Vec3 normal =
          (mesh.vertices[tri[1]] - a).cross(mesh.vertices[tri[2]] - a).normalized();
      const Vec3 centroid =
          (a + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]) / 3.0;
      int axis = 0;
      normal.cwiseAbs().maxCoeff(&axis);
      EXPECT_NEAR(std::abs(normal[axis]), 1.0, 1e-12) << name;
      EXPECT_NEAR(centroid[axis], normal[axis] * half[axis], 1e-12) << name;
    }
  }
}

// A hand-made two-tet mesh: the shared face is interior, the six others are boundary.
TEST(BoundaryTest, TwoTetsShareOneFace) {
  TetMesh mesh;
  mesh.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1),
                   Vec3(1, 1, 1)};
  mesh.tets = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  if (TetVolume(mesh, 1) < 0.0) std::swap(mesh.tets[1][2], mesh.tets[1][3]);
  const SurfaceMesh surface = ExtractBoundary(mesh);
  ASSERT_EQ(surface.triangles.size(), 6u);
  EXPECT_EQ(std::count(surface.triangle_tet.begin(), surface.triangle_tet.end(), 0), 3);
  EXPECT_EQ(std::count(surface.triangle_tet.begin(), surface.triangle_tet.end(), 1), 3);
  for (std::array<int, 3> tri : surface.triangles) {
    std::sort(tri.begin(), tri.end());
    EXPECT_NE(tri, (std::array<int, 3>{1, 2, 3}));
  }
  ExpectClosedOutward(mesh, surface, "two tets");
}

TEST(TetMeshTest, SphereVolumeConverges) {
  const double radius = 0.3;
  const double exact = 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3);
  double previous_error = 1e300;
  for (int resolution : {1, 2, 4, 8, 12}) {
    const std::string name = "sphere " + std::to_string(resolution);
    const TetMesh mesh = MakeSphereMesh(radius, resolution);
    // 2 * resolution cells per side of the cube, 6 tets per cell; the cube's 6 faces of
    // (2 resolution)^2 squares make the boundary.
    const int cells = 2 * resolution;
    EXPECT_EQ(mesh.tets.size(), static_cast<size_t>(6 * cells * cells * cells)) << name;
    EXPECT_EQ(mesh.vertices.size(), static_cast<size_t>((cells + 1) * (cells + 1) * (cells + 1)))
        << name;
    EXPECT_EQ(ExpectValidMesh(mesh, name), 12 * cells * cells) << name;
    // The boundary vertices lie on the sphere, the others inside.
    const SurfaceMesh surface = ExtractBoundary(mesh);
    std::vector<bool> on_boundary(mesh.vertices.size(), false);
    for (const auto& tri : surface.triangles) {
      for (int v : tri) on_boundary[v] = true;
    }
    for (size_t v = 0; v < mesh.vertices.size(); ++v) {
      if (on_boundary[v]) {
        EXPECT_NEAR(mesh.vertices[v].norm(), radius, 1e-12) << name;
      } else {
        EXPECT_LT(mesh.vertices[v].norm(), radius * (1.0 - 1e-9)) << name;
      }
    }
    const double error = std::abs(MeshVolume(mesh) - exact) / exact;
    EXPECT_LT(MeshVolume(mesh), exact) << name;  // inscribed
    EXPECT_LT(error, previous_error) << name;
    if (resolution == 4) {
      EXPECT_LT(error, 0.03) << name;
    }
    if (resolution == 12) {
      EXPECT_LT(error, 0.003) << name;
    }
    previous_error = error;
  }
}

// Every tet stays well shaped as the resolution grows (the radial map is homogeneous, so
// the cells near the centre keep their shape and those further out are less distorted):
// the smallest tet stays above a fixed fraction of the mean.
TEST(TetMeshTest, SphereTetsStayPositiveAtAllResolutions) {
  for (int resolution = 1; resolution <= 24; ++resolution) {
    const std::string name = "sphere " + std::to_string(resolution);
    const TetMesh mesh = MakeSphereMesh(1.0, resolution);
    const double mean = MeshVolume(mesh) / mesh.tets.size();
    double smallest = mean;
    for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
      smallest = std::min(smallest, TetVolume(mesh, t));
    }
    EXPECT_GT(smallest, 0.3 * mean) << name;
  }
}

TEST(TetMeshTest, CylinderVolumeConverges) {
  const double radius = 0.2, half_height = 0.5;
  const double exact = std::numbers::pi * radius * radius * 2.0 * half_height;
  double previous_error = 1e300;
  for (int k : {1, 2, 4, 8}) {
    const int radial = k, around = 6 * k, layers = 2 * k;
    const std::string name = "cylinder " + std::to_string(k);
    const TetMesh mesh = MakeCylinderMesh(radius, half_height, radial, around, layers);
    EXPECT_EQ(mesh.vertices.size(), static_cast<size_t>((1 + radial * around) * (layers + 1)))
        << name;
    EXPECT_EQ(mesh.tets.size(), static_cast<size_t>(3 * around * (2 * radial - 1) * layers))
        << name;
    // Top and bottom discs plus the side's around * layers quads.
    EXPECT_EQ(ExpectValidMesh(mesh, name),
              2 * around * (2 * radial - 1) + 2 * around * layers)
        << name;
    for (const Vec3& v : mesh.vertices) {
      EXPECT_LE(std::hypot(v.x(), v.y()), radius * (1.0 + 1e-12)) << name;
      EXPECT_LE(std::abs(v.z()), half_height * (1.0 + 1e-12)) << name;
    }
    // The cross-section is the inscribed regular polygon: the volume is known exactly.
    const double polygon =
        0.5 * around * radius * radius * std::sin(2.0 * std::numbers::pi / around);
    EXPECT_NEAR(MeshVolume(mesh), polygon * 2.0 * half_height, 1e-12 * exact) << name;
    const double error = std::abs(MeshVolume(mesh) - exact) / exact;
    EXPECT_LT(error, previous_error) << name;
    if (k == 4) {
      EXPECT_LT(error, 0.02) << name;
    }
    previous_error = error;
  }
}

TEST(TetMeshTest, CylinderParametersAreIndependent) {
  for (const std::array<int, 3>& p : {std::array<int, 3>{1, 3, 1}, {5, 3, 2}, {1, 40, 7},
                                      {3, 17, 1}}) {
    const std::string name = ::testing::PrintToString(p);
    const TetMesh mesh = MakeCylinderMesh(1.5, 0.25, p[0], p[1], p[2]);
    EXPECT_EQ(ExpectValidMesh(mesh, name), 2 * p[1] * (2 * p[0] - 1) + 2 * p[1] * p[2])
        << name;
  }
}

// The cube file: 5 tets (one written with negative orientation), 2 triangles and a point
// element that must be ignored, node tags 2..19 in two blocks plus a node (tag 100) used
// only by the point, which is dropped.
TEST(GmshTest, ReadsTheCubeFile) {
  const std::string text = ReadTestFile("tet_cube.msh");
  ASSERT_FALSE(text.empty()) << "cannot read " << LIGATURE_TEST_DATA_DIR << "/tet_cube.msh";
  const absl::StatusOr<TetMesh> mesh = ReadGmshMsh41(text);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ(mesh->tets.size(), 5u);
  // Tags 2, 3, 5, 7, 11, 13, 17, 19 become vertices 0..7 in file order.
  const std::vector<Vec3> corners = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0),
                                     Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(1, 0, 1),
                                     Vec3(1, 1, 1), Vec3(0, 1, 1)};
  ASSERT_EQ(mesh->vertices.size(), corners.size());
  for (size_t i = 0; i < corners.size(); ++i) {
    EXPECT_EQ(mesh->vertices[i], corners[i]) << i;
  }
  // Element 101 (tags 2 5 13 19) is negative in the file and comes back flipped; element
  // 102 (tags 3 2 13 5) is positive and kept as written.
  EXPECT_EQ(mesh->tets[0], (std::array<int, 4>{0, 2, 7, 5}));
  EXPECT_EQ(mesh->tets[1], (std::array<int, 4>{1, 0, 5, 2}));
  EXPECT_NEAR(TetVolume(*mesh, 0), 1.0 / 3.0, 1e-15);
  for (int t = 1; t < 5; ++t) EXPECT_NEAR(TetVolume(*mesh, t), 1.0 / 6.0, 1e-15) << t;
  EXPECT_NEAR(MeshVolume(*mesh), 1.0, 1e-15);
  EXPECT_EQ(ExpectValidMesh(*mesh, "cube file"), 12);
}

TEST(GmshTest, FlipsNegativeTets) {
  const std::string text =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
      "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 4 3\n$EndElements\n";
  const absl::StatusOr<TetMesh> mesh = ReadGmshMsh41(text);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ(mesh->tets.size(), 1u);
  EXPECT_NEAR(TetVolume(*mesh, 0), 1.0 / 6.0, 1e-15);
  EXPECT_EQ(mesh->tets[0], (std::array<int, 4>{0, 1, 2, 3}));
}

// Parametric node blocks carry entityDim extra coordinates per node, which are skipped;
// unknown sections are skipped; Windows line ends are accepted.
TEST(GmshTest, SkipsParametricCoordinatesAndOtherSections) {
  const std::string text =
      "$MeshFormat\r\n4.1 0 8\r\n$EndMeshFormat\r\n"
      "$Comments\r\nanything 1 2 3\r\n$EndComments\r\n"
      "$Nodes\r\n2 4 1 9\r\n1 1 1 2\r\n1\r\n9\r\n0 0 0 0.0\r\n1 0 0 1.0\r\n"
      "3 1 0 2\r\n4\r\n5\r\n0 1 0\r\n0 0 1\r\n$EndNodes\r\n"
      "$Elements\r\n1 1 1 1\r\n3 1 4 1\r\n7 1 9 4 5\r\n$EndElements\r\n"
      "$NodeData\r\n1\r\n\"x\"\r\n$EndNodeData\r\n";
  const absl::StatusOr<TetMesh> mesh = ReadGmshMsh41(text);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ(mesh->vertices.size(), 4u);
  EXPECT_EQ(mesh->vertices[1], Vec3(1, 0, 0));
  EXPECT_NEAR(MeshVolume(*mesh), 1.0 / 6.0, 1e-15);
}

TEST(GmshTest, RejectsBadInputs) {
  const std::string cube = ReadTestFile("tet_cube.msh");
  ASSERT_FALSE(cube.empty());
  // The cube's triangles and point alone: no tetrahedra.
  const std::string no_tets =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n"
      "$Elements\n2 2 1 2\n2 1 2 1\n1 1 2 3\n0 1 15 1\n2 1\n$EndElements\n";
  const struct {
    const char* name;
    std::string text;
    const char* message;
  } cases[] = {
      {"version 2.2", Replace(cube, "4.1 0 8", "2.2 0 8"), "unsupported version 2.2"},
      {"binary", Replace(cube, "4.1 0 8", "4.1 1 8"), "binary"},
      {"missing $EndNodes", Replace(cube, "$EndNodes\n", ""), "missing $EndNodes"},
      {"truncated nodes", cube.substr(0, cube.find("0 0 1\n1 0 1")), "$Nodes: truncated"},
      {"truncated elements", Replace(cube, "200 100\n", ""), "$Elements: truncated"},
      {"unknown node tag", Replace(cube, "105 17 5 13 19", "105 17 5 13 99"),
       "tetrahedron 105 references unknown node tag 99"},
      {"no tets", no_tets, "no tetrahedra"},
      {"tet with 3 nodes", Replace(cube, "105 17 5 13 19", "105 17 5 13"),
       "tetrahedron 105 has 3 nodes"},
      {"degenerate tet", Replace(cube, "105 17 5 13 19", "105 17 5 13 13"), "degenerate"},
      {"bad coordinate", Replace(cube, "0.5 0.5 0.5\n", "0.5 zero 0.5\n"), "bad coordinate"},
      {"duplicate node tag", Replace(cube, "11\n13\n", "11\n3\n"), "duplicate node tag 3"},
      {"no $MeshFormat", cube.substr(cube.find("$Nodes")), "$MeshFormat"},
      {"no $Elements", cube.substr(0, cube.find("$Elements")), "no $Elements"},
      {"empty", "", "$MeshFormat"},
      {"unterminated section", cube + "$Comments\nhello\n", "missing $EndComments"},
  };
  for (const auto& c : cases) {
    const absl::StatusOr<TetMesh> mesh = ReadGmshMsh41(c.text);
    ASSERT_FALSE(mesh.ok()) << c.name;
    EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(std::string(mesh.status().message()).find(c.message), std::string::npos)
        << c.name << ": " << mesh.status();
  }
}

// Pieces join through shared vertices: a box is one piece, two boxes side by side (their
// vertices renumbered apart) are two, and one shared vertex joins them again.
TEST(TetMeshTest, CountsConnectedPieces) {
  TetMesh a = MakeBoxMesh(Vec3(0.5, 0.5, 0.5), 2, 1, 1);
  EXPECT_EQ(CountPieces(a), 1);
  TetMesh two = a;
  const int n = static_cast<int>(a.vertices.size());
  for (const Vec3& v : a.vertices) two.vertices.push_back(v + Vec3(3, 0, 0));
  for (auto tet : a.tets) {
    for (int& v : tet) v += n;
    two.tets.push_back(tet);
  }
  EXPECT_EQ(CountPieces(two), 2);
  two.tets.back()[0] = 0;
  EXPECT_EQ(CountPieces(two), 1);
  EXPECT_EQ(CountPieces(TetMesh{}), 0);
}

}  // namespace
}  // namespace ligature
