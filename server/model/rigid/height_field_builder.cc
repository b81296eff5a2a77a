// Checking a height field's grid, then meshing its cells.

#include "server/model/rigid/height_field_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/model/rigid/triangle_mesh_builder.h"

namespace ligature {
namespace {

// A side of the grid: 2 to kMaxHeightFieldSide points.
absl::Status CheckSide(int points, const char* field) {
  if (points < 2 || points > kMaxHeightFieldSide) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": 2 to ", kMaxHeightFieldSide, " grid points allowed"));
  }
  return absl::OkStatus();
}

absl::Status CheckSpacing(double spacing, const char* field) {
  if (!(std::isfinite(spacing) && spacing > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", spacing, " is not a finite length above zero"));
  }
  return absl::OkStatus();
}

// The grid's sizes, heights and holes, each checked; on success the holes as a mask over
// the cells.
absl::StatusOr<std::vector<bool>> CheckGrid(const HeightField& grid) {
  for (const absl::Status& s :
       {CheckSide(grid.rows, "rows"), CheckSide(grid.columns, "columns"),
        CheckSpacing(grid.spacing_x, "spacing_x"), CheckSpacing(grid.spacing_z, "spacing_z")}) {
    if (!s.ok()) return s;
  }
  const int64_t points = int64_t{grid.rows} * grid.columns;
  if (points > kMaxMeshVertices) {
    return absl::InvalidArgumentError(absl::StrCat("rows: ", grid.rows, " x ", grid.columns,
                                                   " grid points, at most ", kMaxMeshVertices,
                                                   " allowed"));
  }
  if (static_cast<int64_t>(grid.heights.size()) != points) {
    return absl::InvalidArgumentError(absl::StrCat("heights: ", grid.heights.size(),
                                                   " given, rows x columns = ", points, " wanted"));
  }
  for (std::size_t i = 0; i < grid.heights.size(); ++i) {
    if (!std::isfinite(grid.heights[i])) {
      return absl::InvalidArgumentError(absl::StrCat("heights[", i, "]: not finite"));
    }
  }
  const std::size_t cells = static_cast<std::size_t>(grid.rows - 1) * (grid.columns - 1);
  std::vector<bool> hole(cells, false);
  for (std::size_t j = 0; j < grid.holes.size(); ++j) {
    if (grid.holes[j] >= cells) {
      return absl::InvalidArgumentError(absl::StrCat("holes[", j, "]: cell ", grid.holes[j],
                                                     " is out of range (", cells, " cells)"));
    }
    hole[grid.holes[j]] = true;
  }
  if (std::find(hole.begin(), hole.end(), false) == hole.end()) {
    return absl::InvalidArgumentError("holes: every cell is a hole, no surface is left");
  }
  return hole;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const TriangleMesh>> BuildHeightField(HeightField grid) {
  auto hole = CheckGrid(grid);
  if (!hole.ok()) return hole.status();
  std::vector<Vec3> vertices;
  vertices.reserve(grid.heights.size());
  for (int r = 0; r < grid.rows; ++r) {
    for (int c = 0; c < grid.columns; ++c) vertices.push_back(grid.Point(r, c));
  }
  // Two triangles a cell, counter-clockwise seen from +Y; the diagonal alternates like a
  // chequerboard so that no direction across the grid is favoured.
  const auto at = [&grid](int r, int c) { return static_cast<uint32_t>(r * grid.columns + c); };
  std::vector<uint32_t> indices;
  indices.reserve(6 * hole->size());
  for (int r = 0; r + 1 < grid.rows; ++r) {
    for (int c = 0; c + 1 < grid.columns; ++c) {
      if ((*hole)[static_cast<std::size_t>(r) * (grid.columns - 1) + c]) continue;
      const uint32_t p00 = at(r, c), p01 = at(r, c + 1), p10 = at(r + 1, c), p11 = at(r + 1, c + 1);
      if ((r + c) % 2 == 0) {
        indices.insert(indices.end(), {p00, p10, p01, p01, p10, p11});
      } else {
        indices.insert(indices.end(), {p00, p10, p11, p00, p11, p01});
      }
    }
  }
  auto source = std::make_shared<const HeightField>(std::move(grid));
  return BuildTriangleMesh(vertices, indices, std::move(source));
}

}  // namespace ligature
