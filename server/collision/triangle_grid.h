#pragma once
// A uniform hash grid over a triangle mesh, for "which triangles come near this point"
// queries: each triangle is listed in every cell that its bounds, grown by a reach, meet,
// so the one cell holding a point lists every triangle whose grown bounds contain it.

#include <array>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/math/types.h"

namespace ligature {

class TriangleGrid {
 public:
  // Lists `triangles` (vertex indices into `x`) with bounds grown by `reach` (m, >= 0).
  void Build(std::span<const std::array<int, 3>> triangles, std::span<const Vec3> x,
             double reach);

  // The triangles (indices into Build's list) whose grown bounds may contain p; each once.
  std::span<const int> Near(const Vec3& p) const;

 private:
  using Cell = std::array<int64_t, 3>;
  Cell CellOf(const Vec3& p) const;
  double cell_ = 1.0;
  absl::flat_hash_map<Cell, std::vector<int>> cells_;
};

}  // namespace ligature
