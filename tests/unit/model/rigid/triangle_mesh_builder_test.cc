#include "server/model/rigid/triangle_mesh_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ligature {
namespace {

const std::vector<Vec3> kSquare = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
const std::vector<uint32_t> kTwoTriangles = {0, 2, 1, 1, 2, 3};

void ExpectInvalid(const std::vector<Vec3>& v, const std::vector<uint32_t>& i,
                   const std::string& names) {
  auto mesh = BuildTriangleMesh(v, i);
  ASSERT_FALSE(mesh.ok());
  EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mesh.status().message().substr(0, names.size()), names) << mesh.status();
}

TEST(TriangleMeshBuilderTest, NormalsFollowTheWinding) {
  auto mesh = BuildTriangleMesh(kSquare, kTwoTriangles);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ((*mesh)->triangles.size(), 2u);
  for (const Vec3& n : (*mesh)->normals) EXPECT_LT((n - Vec3::UnitY()).norm(), 1e-15);
  EXPECT_EQ((*mesh)->local_min, Vec3(0, 0, 0));
  EXPECT_EQ((*mesh)->local_max, Vec3(1, 0, 1));
}

TEST(TriangleMeshBuilderTest, BadInputNamesTheElement) {
  std::vector<Vec3> nan = kSquare;
  nan[1].y() = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(nan, kTwoTriangles, "vertices[1]");
  ExpectInvalid(kSquare, {0, 2, 1, 1, 7, 3}, "indices[4]");
  ExpectInvalid(kSquare, {0, 2, 1, 1, 2, 2}, "indices[3..5]");
  ExpectInvalid({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, {0, 1, 2}, "indices[0..2]");
  ExpectInvalid(kSquare, {0, 2, 1, 1}, "indices");
  ExpectInvalid(kSquare, {}, "indices");
  ExpectInvalid({{0, 0, 0}, {1, 0, 0}}, {0, 1, 0}, "vertices");
}

// Every triangle sits in exactly one leaf of at most four, and every node's bounds hold
// its triangles.
TEST(TriangleMeshBuilderTest, TreeHoldsEveryTriangleOnce) {
  std::vector<Vec3> v;
  std::vector<uint32_t> idx;
  for (int i = 0; i < 30; ++i) {
    const double a = 0.21 * i;
    v.push_back({std::cos(a), 0.1 * i, std::sin(a)});
  }
  for (uint32_t i = 0; i + 2 < 30; ++i) idx.insert(idx.end(), {i, i + 1, i + 2});
  auto built = BuildTriangleMesh(v, idx);
  ASSERT_TRUE(built.ok()) << built.status();
  const TriangleMesh& mesh = **built;
  std::vector<int> seen(mesh.triangles.size(), 0);
  for (const TriangleMesh::Node& node : mesh.nodes) {
    if (node.left >= 0) continue;
    EXPECT_LE(node.count, 4);
    for (int i = node.first; i < node.first + node.count; ++i) {
      const int t = mesh.order[i];
      ++seen[t];
      for (int k = 0; k < 3; ++k) {
        EXPECT_TRUE((mesh.Corner(t, k).array() >= node.bounds.min.array()).all());
        EXPECT_TRUE((mesh.Corner(t, k).array() <= node.bounds.max.array()).all());
      }
    }
  }
  for (const int s : seen) EXPECT_EQ(s, 1);
}

}  // namespace
}  // namespace ligature
