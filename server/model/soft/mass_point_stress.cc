#include "server/model/soft/mass_point_stress.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace ligature {

MassPointStress::MassPointStress(const MassPointModel& model) {
  absl::flat_hash_map<std::pair<int, int>, int> index;
  const auto& edges = model.edges();
  for (size_t e = 0; e < edges.size(); ++e) {
    index[{std::min(edges[e][0], edges[e][1]), std::max(edges[e][0], edges[e][1])}] =
        static_cast<int>(e);
  }
  edge_tets_.assign(edges.size(), 0);
  tet_edges_.resize(model.tets().size());
  static constexpr std::array<std::pair<int, int>, 6> kPairs = {
      std::pair{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (size_t t = 0; t < model.tets().size(); ++t) {
    const std::array<int, 4>& q = model.tets()[t];
    for (int k = 0; k < 6; ++k) {
      const int a = q[kPairs[k].first], b = q[kPairs[k].second];
      auto it = index.find({std::min(a, b), std::max(a, b)});
      tet_edges_[t][k] = it == index.end() ? -1 : it->second;
      if (it != index.end()) ++edge_tets_[it->second];
    }
  }
}

Mat3 MassPointStress::Stress(const MassPointModel& model, const std::vector<Vec3>& x,
                             int t) const {
  const std::array<int, 4>& q = model.tets()[t];
  const double volume =
      (x[q[1]] - x[q[0]]).dot((x[q[2]] - x[q[0]]).cross(x[q[3]] - x[q[0]])) / 6.0;
  if (!(volume > 0.0)) return Mat3::Zero();
  const MassPointMaterial& m = model.material();
  // Edge springs, each with the tet's share of it: T l u u^T = T (d d^T) / l.
  Mat3 virial = Mat3::Zero();
  for (const int e : tet_edges_[t]) {
    if (e < 0) continue;
    const auto& edge = model.edges()[e];
    const Vec3 d = x[edge[0]] - x[edge[1]];
    const double l = d.norm();
    const double l0 = model.rest_lengths()[e];
    if (!(l > 0.0)) continue;
    const double tension = m.distance_stiffness * (l - l0) / l0;
    virial += (tension / (l * edge_tets_[e])) * (d * d.transpose());
  }
  const double v0 = model.rest_volumes()[t];
  return virial / volume +
         (m.volume_stiffness * (volume - v0) / (v0 * v0)) * Mat3::Identity();
}

}  // namespace ligature
