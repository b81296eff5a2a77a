#pragma once
// Triangle meshes for the tests: a grid of square cells on the XZ plane, two triangles a
// cell with their diagonals alternating, every triangle facing +Y, optionally lifted by a
// height function.

#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "server/geometry/triangle_mesh.h"
#include "server/model/rigid/triangle_mesh_builder.h"

namespace ligature::testing {

// n x n cells of side `cell`, centred on the origin; vertex (x, z) at height(x, z).
inline std::shared_ptr<const TriangleMesh> GridMesh(
    int n, double cell, const std::function<double(double, double)>& height = nullptr) {
  std::vector<Vec3> vertices;
  const double origin = -0.5 * n * cell;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      const double x = origin + i * cell, z = origin + j * cell;
      vertices.emplace_back(x, height ? height(x, z) : 0.0, z);
    }
  }
  // Vertex (i, j) is i (n + 1) + j; x grows with i, z with j. Each triple runs
  // counter-clockwise seen from +Y.
  const auto at = [n](int i, int j) { return static_cast<uint32_t>(i * (n + 1) + j); };
  std::vector<uint32_t> indices;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const uint32_t v00 = at(i, j), v10 = at(i + 1, j), v01 = at(i, j + 1), v11 = at(i + 1, j + 1);
      if ((i + j) % 2 == 0) {
        indices.insert(indices.end(), {v00, v01, v10, v10, v01, v11});
      } else {
        indices.insert(indices.end(), {v00, v11, v10, v00, v01, v11});
      }
    }
  }
  auto mesh = BuildTriangleMesh(vertices, indices);
  if (!mesh.ok()) std::abort();
  return *mesh;
}

}  // namespace ligature::testing
