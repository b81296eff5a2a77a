#pragma once
// Checks on boundary surfaces shared by the soft-body tests.

#include <map>
#include <utility>

#include "server/model/soft/tet_mesh.h"

namespace ligature::testing {

// Closed boundary: every directed edge (a, b) of the triangles has as many (b, a).
inline bool BoundaryClosed(const SurfaceMesh& surface) {
  std::map<std::pair<int, int>, int> count;
  for (const auto& tri : surface.triangles) {
    for (int i = 0; i < 3; ++i) ++count[{tri[i], tri[(i + 1) % 3]}];
  }
  for (const auto& [edge, c] : count) {
    auto it = count.find({edge.second, edge.first});
    if (it == count.end() || it->second != c) return false;
  }
  return true;
}

}  // namespace ligature::testing
