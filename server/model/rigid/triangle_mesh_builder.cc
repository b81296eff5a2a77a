// Checking a mesh's vertices and indices, then its normals, active edges and tree.

#include "server/model/rigid/triangle_mesh_builder.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Triangles per leaf of the tree.
constexpr int kLeafSize = 4;
// A triangle whose doubled area is below this share of its longest edge squared is a
// sliver too thin to give a normal.
constexpr double kMinAreaRatio = 1e-10;

}  // namespace

absl::StatusOr<std::shared_ptr<const TriangleMesh>> BuildTriangleMesh(
    std::span<const Vec3> vertices, std::span<const uint32_t> indices,
    std::shared_ptr<const HeightField> height_field) {
  if (vertices.size() < 3 || vertices.size() > static_cast<std::size_t>(kMaxMeshVertices)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertices: ", vertices.size(), " given, 3 to ", kMaxMeshVertices, " allowed"));
  }
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    if (!vertices[i].allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("vertices[", i, "]: not finite"));
    }
  }
  if (indices.size() % 3 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices: ", indices.size(), " given, not three per triangle"));
  }
  const std::size_t count = indices.size() / 3;
  if (count < 1 || count > static_cast<std::size_t>(kMaxMeshTriangles)) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices: ", count, " triangles given, 1 to ", kMaxMeshTriangles, " allowed"));
  }
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices.assign(vertices.begin(), vertices.end());
  mesh->triangles.resize(count);
  mesh->normals.resize(count);
  for (std::size_t t = 0; t < count; ++t) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t index = indices[3 * t + k];
      if (index >= vertices.size()) {
        return absl::InvalidArgumentError(absl::StrCat("indices[", 3 * t + k, "]: ", index,
                                                       " is out of range (", vertices.size(),
                                                       " vertices)"));
      }
      mesh->triangles[t][k] = static_cast<int>(index);
    }
    // The normal, from the corners in order; a sliver has none.
    const Vec3& a = mesh->Corner(static_cast<int>(t), 0);
    const Vec3& b = mesh->Corner(static_cast<int>(t), 1);
    const Vec3& c = mesh->Corner(static_cast<int>(t), 2);
    const Vec3 cross = (b - a).cross(c - a);
    const double longest =
        std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    if (!(cross.norm() > kMinAreaRatio * longest)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", 3 * t, "..", 3 * t + 2, "]: triangle ", t, " is degenerate (no area)"));
    }
    mesh->normals[t] = cross.normalized();
  }
  MarkActiveEdges(kMeshCreaseAngle, mesh.get());
  BuildMeshTree(kLeafSize, mesh.get());
  mesh->height_field = std::move(height_field);
  return std::shared_ptr<const TriangleMesh>(std::move(mesh));
}

}  // namespace ligature
