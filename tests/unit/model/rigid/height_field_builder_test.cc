#include "server/model/rigid/height_field_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ligature {
namespace {

// 3 rows x 4 columns, 0.5 m apart along X and 0.25 m along Z, heights 0 to 1.1.
HeightField SmallGrid() {
  HeightField grid;
  grid.rows = 3;
  grid.columns = 4;
  grid.spacing_x = 0.5;
  grid.spacing_z = 0.25;
  for (int i = 0; i < 12; ++i) grid.heights.push_back(0.1 * i);
  return grid;
}

void ExpectInvalid(const HeightField& grid, const std::string& names) {
  auto mesh = BuildHeightField(grid);
  ASSERT_FALSE(mesh.ok());
  EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mesh.status().message().substr(0, names.size() + 1), names + ":") << mesh.status();
}

// The grid is centred on the origin: columns at x = -0.75, -0.25, 0.25, 0.75, rows at
// z = -0.25, 0, 0.25; each point at its height; the grid is kept as given.
TEST(HeightFieldBuilderTest, PointsSitOnTheCentredGrid) {
  auto mesh = BuildHeightField(SmallGrid());
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ((*mesh)->vertices.size(), 12u);
  EXPECT_EQ((*mesh)->vertices[0], Vec3(-0.75, 0.0, -0.25));
  EXPECT_EQ((*mesh)->vertices[6], Vec3(0.25, 0.1 * 6, 0.0));
  EXPECT_EQ((*mesh)->vertices[11], Vec3(0.75, 0.1 * 11, 0.25));
  EXPECT_EQ((*mesh)->triangles.size(), 12u);  // two for each of the 2 x 3 cells
  ASSERT_NE((*mesh)->height_field, nullptr);
  EXPECT_EQ((*mesh)->height_field->heights, SmallGrid().heights);
}

// On a tilted grid, heights 0.3 x - 0.2 z, every triangle faces up the plane's normal
// (-0.3, 1, 0.2) / |.|, whichever way its cell's diagonal runs.
TEST(HeightFieldBuilderTest, TrianglesFaceUpTheSlope) {
  HeightField grid = SmallGrid();
  for (int r = 0; r < grid.rows; ++r) {
    for (int c = 0; c < grid.columns; ++c) {
      const double x = (c - 1.5) * grid.spacing_x, z = (r - 1.0) * grid.spacing_z;
      grid.heights[r * grid.columns + c] = 0.3 * x - 0.2 * z;
    }
  }
  auto mesh = BuildHeightField(grid);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  const Vec3 normal = Vec3(-0.3, 1.0, 0.2).normalized();
  for (const Vec3& n : (*mesh)->normals) EXPECT_LT((n - normal).norm(), 1e-12);
}

// A hole removes its cell's two triangles: nothing of the surface is left over the hole,
// its neighbours keep theirs, and the hole's rim is an open (active) edge.
TEST(HeightFieldBuilderTest, HoleRemovesItsCell) {
  HeightField grid = SmallGrid();
  std::fill(grid.heights.begin(), grid.heights.end(), 0.0);
  grid.holes = {4};  // cell (1, 1): x in [-0.25, 0.25], z in [0, 0.25]
  auto mesh = BuildHeightField(grid);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ((*mesh)->triangles.size(), 10u);
  std::vector<int> found;
  (*mesh)->Overlapping(Aabb{Vec3(-0.2, -1.0, 0.05), Vec3(0.2, 1.0, 0.2)}, &found);
  EXPECT_TRUE(found.empty());
  // Cell (1, 0) beside it keeps its two.
  (*mesh)->Overlapping(Aabb{Vec3(-0.6, -1.0, 0.1), Vec3(-0.4, 1.0, 0.15)}, &found);
  EXPECT_EQ(found.size(), 2u);
  // The point above the hole's centre is nearest to its rim, not to a surface below it.
  const MeshSurfacePoint near = NearestSurfacePoint(**mesh, Vec3(0.0, 0.01, 0.125));
  EXPECT_NEAR(near.distance, std::hypot(0.01, 0.125), 1e-12);
  // Every edge on the rim (both ends on it, on z = 0 or z = 0.25 or x = +-0.25) is active
  // where a triangle meets it; interior seams of the flat grid are not.
  const auto on_rim = [](const Vec3& p) {
    return std::abs(p.x()) <= 0.25 + 1e-12 && p.z() >= -1e-12 && p.z() <= 0.25 + 1e-12;
  };
  int rim_edges = 0;
  for (int t = 0; t < static_cast<int>((*mesh)->triangles.size()); ++t) {
    for (int k = 0; k < 3; ++k) {
      const Vec3& a = (*mesh)->Corner(t, k);
      const Vec3& b = (*mesh)->Corner(t, (k + 1) % 3);
      const bool boundary =
          std::abs(a.x() - b.x()) < 1e-12
              ? std::abs(std::abs(a.x()) - 0.75) < 1e-12
              : (std::abs(a.z() - b.z()) < 1e-12 && std::abs(std::abs(a.z()) - 0.25) < 1e-12);
      const bool rim = on_rim(a) && on_rim(b) && (a - b).norm() <= 0.5 + 1e-12 &&
                       (std::abs(a.x() - b.x()) < 1e-12 || std::abs(a.z() - b.z()) < 1e-12);
      const bool active = ((*mesh)->active_edges[t] >> k) & 1;
      if (rim && !boundary) ++rim_edges;
      EXPECT_EQ(active, rim || boundary) << "triangle " << t << " edge " << k;
    }
  }
  EXPECT_EQ(rim_edges, 3);  // the fourth side of the hole lies on the grid's edge z = 0.25
}

TEST(HeightFieldBuilderTest, BadGridNamesTheField) {
  HeightField g = SmallGrid();
  g.rows = 1;
  ExpectInvalid(g, "rows");
  g = SmallGrid();
  g.columns = kMaxHeightFieldSide + 1;
  ExpectInvalid(g, "columns");
  g = SmallGrid();
  g.spacing_x = 0.0;
  ExpectInvalid(g, "spacing_x");
  g = SmallGrid();
  g.spacing_z = std::numeric_limits<double>::infinity();
  ExpectInvalid(g, "spacing_z");
  g = SmallGrid();
  g.heights.pop_back();
  ExpectInvalid(g, "heights");
  g = SmallGrid();
  g.heights[5] = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(g, "heights[5]");
  g = SmallGrid();
  g.holes = {0, 6};
  ExpectInvalid(g, "holes[1]");
  g = SmallGrid();
  g.holes = {0, 1, 2, 3, 4, 5, 5};
  ExpectInvalid(g, "holes");
  // 2048 x 1024 points is twice the most a mesh may have.
  g = SmallGrid();
  g.rows = 2048;
  g.columns = 1024;
  ExpectInvalid(g, "rows");
}

}  // namespace
}  // namespace ligature
