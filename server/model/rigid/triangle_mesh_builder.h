#pragma once
// Builds a TriangleMesh (server/geometry/triangle_mesh.h) from vertices and triangle
// indices: checks them, computes the face normals, marks the active edges and builds the
// bounding-volume tree.

#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "server/geometry/triangle_mesh.h"

namespace ligature {

inline constexpr int kMaxMeshVertices = 1 << 20;
inline constexpr int kMaxMeshTriangles = 1 << 21;
// Seams between two triangles whose normals differ by less than this (rad), and concave
// seams, are inactive: contacts there take the face normal.
inline constexpr double kMeshCreaseAngle = 5.0 * 3.14159265358979323846 / 180.0;

// The mesh of `vertices` (local frame, m) and `indices` (three per triangle, counter-
// clockwise seen from the front). INVALID_ARGUMENT naming the offending element
// (vertices[i], indices[j]) for a vertex that is not finite, an index out of range, a
// triangle that is degenerate (two corners the same, or all on a line), an index count that
// is not a multiple of three, or too many (or no) vertices or triangles. A height-field
// mesh keeps `height_field`, the grid it was built from.
absl::StatusOr<std::shared_ptr<const TriangleMesh>> BuildTriangleMesh(
    std::span<const Vec3> vertices, std::span<const uint32_t> indices,
    std::shared_ptr<const HeightField> height_field = nullptr);

}  // namespace ligature
