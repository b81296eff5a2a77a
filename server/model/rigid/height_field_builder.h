#pragma once
// Builds the triangle mesh of a height field (server/geometry/height_field.h): checks the
// grid, then lays two triangles over every cell that is not a hole and builds the mesh as
// any other (normals, active edges, tree), keeping the grid in it.

#include <memory>

#include "absl/status/statusor.h"
#include "server/geometry/height_field.h"
#include "server/geometry/triangle_mesh.h"

namespace ligature {

// Rows and columns of a height field: 2 to this many each, and at most kMaxMeshVertices
// grid points in all.
inline constexpr int kMaxHeightFieldSide = 4096;

// The mesh of `grid`. INVALID_ARGUMENT naming the offending field (rows, columns,
// spacing_x, spacing_z, heights[i], holes[j]) for a side out of range, too many points, a
// spacing that is not finite and positive, a height count other than rows x columns, a
// height that is not finite, a hole that names no cell, or no cell left that is not a hole.
absl::StatusOr<std::shared_ptr<const TriangleMesh>> BuildHeightField(HeightField grid);

}  // namespace ligature
