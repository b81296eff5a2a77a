#include "server/collision/triangle_grid.h"

#include <algorithm>
#include <cmath>

namespace ligature {

TriangleGrid::Cell TriangleGrid::CellOf(const Vec3& p) const {
  return {static_cast<int64_t>(std::floor(p.x() / cell_)),
          static_cast<int64_t>(std::floor(p.y() / cell_)),
          static_cast<int64_t>(std::floor(p.z() / cell_))};
}

void TriangleGrid::Build(std::span<const std::array<int, 3>> triangles, std::span<const Vec3> x,
                         double reach) {
  cells_.clear();
  if (triangles.empty()) return;
  // Cells about as wide as a grown triangle, so that each lands in a few cells.
  double extent = 0.0;
  for (const std::array<int, 3>& t : triangles) {
    const Vec3 lo = x[t[0]].cwiseMin(x[t[1]]).cwiseMin(x[t[2]]);
    const Vec3 hi = x[t[0]].cwiseMax(x[t[1]]).cwiseMax(x[t[2]]);
    extent += (hi - lo).maxCoeff();
  }
  cell_ = std::max(extent / static_cast<double>(triangles.size()) + 2.0 * reach, 1e-6);
  for (int i = 0; i < static_cast<int>(triangles.size()); ++i) {
    const std::array<int, 3>& t = triangles[i];
    const Vec3 lo = x[t[0]].cwiseMin(x[t[1]]).cwiseMin(x[t[2]]).array() - reach;
    const Vec3 hi = x[t[0]].cwiseMax(x[t[1]]).cwiseMax(x[t[2]]).array() + reach;
    const Cell a = CellOf(lo), b = CellOf(hi);
    for (int64_t cx = a[0]; cx <= b[0]; ++cx) {
      for (int64_t cy = a[1]; cy <= b[1]; ++cy) {
        for (int64_t cz = a[2]; cz <= b[2]; ++cz) cells_[{cx, cy, cz}].push_back(i);
      }
    }
  }
}

std::span<const int> TriangleGrid::Near(const Vec3& p) const {
  const auto it = cells_.find(CellOf(p));
  if (it == cells_.end()) return {};
  return it->second;
}

}  // namespace ligature
