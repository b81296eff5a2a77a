// The mesh's bounding-volume tree (build and box query) and the marking of active edges.

#include "server/geometry/triangle_mesh.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "server/geometry/triangle_point.h"

namespace ligature {
namespace {

// Bounds of triangle t.
Aabb TriangleBounds(const TriangleMesh& mesh, int t) {
  Aabb box{mesh.Corner(t, 0), mesh.Corner(t, 0)};
  for (int k = 1; k < 3; ++k) {
    box.min = box.min.cwiseMin(mesh.Corner(t, k));
    box.max = box.max.cwiseMax(mesh.Corner(t, k));
  }
  return box;
}

// Bounds of triangles order[first, first + count) (count >= 1).
Aabb BoundTriangles(const TriangleMesh& mesh, int first, int count) {
  Aabb box = TriangleBounds(mesh, mesh.order[first]);
  for (int i = first + 1; i < first + count; ++i) {
    const Aabb t = TriangleBounds(mesh, mesh.order[i]);
    box.min = box.min.cwiseMin(t.min);
    box.max = box.max.cwiseMax(t.max);
  }
  return box;
}

// Builds the subtree over order[first, first + count) at nodes[index]; `centres` holds
// each triangle's centroid.
void BuildNode(int index, int first, int count, int leaf_size, const std::vector<Vec3>& centres,
               TriangleMesh* mesh) {
  mesh->nodes[index].bounds = BoundTriangles(*mesh, first, count);
  if (count <= leaf_size) {
    mesh->nodes[index].first = first;
    mesh->nodes[index].count = count;
    return;
  }
  // Split at the median centre along the axis where the centres spread most.
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = -lo;
  for (int i = first; i < first + count; ++i) {
    lo = lo.cwiseMin(centres[mesh->order[i]]);
    hi = hi.cwiseMax(centres[mesh->order[i]]);
  }
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const int half = count / 2;
  const auto begin = mesh->order.begin() + first;
  std::nth_element(begin, begin + half, begin + count, [&](int a, int b) {
    const double ca = centres[a][axis], cb = centres[b][axis];
    return ca < cb || (ca == cb && a < b);
  });
  const int left = static_cast<int>(mesh->nodes.size());
  mesh->nodes.emplace_back();
  mesh->nodes.emplace_back();
  mesh->nodes[index].left = left;
  mesh->nodes[index].right = left + 1;
  BuildNode(left, first, half, leaf_size, centres, mesh);
  BuildNode(left + 1, first + half, count - half, leaf_size, centres, mesh);
}

// Squared distance from `p` to `box`.
double BoxDistance2(const Aabb& box, const Vec3& p) {
  return (box.min - p).cwiseMax(p - box.max).cwiseMax(0.0).squaredNorm();
}

}  // namespace

void TriangleMesh::Overlapping(const Aabb& box, std::vector<int>* out) const {
  if (nodes.empty()) return;
  // Depth-first with an explicit stack: the tree is balanced, so 64 levels cover any mesh.
  int stack[64];
  int depth = 0;
  stack[depth++] = 0;
  while (depth > 0) {
    const Node& node = nodes[stack[--depth]];
    if (!node.bounds.Overlaps(box)) continue;
    if (node.left < 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        if (TriangleBounds(*this, order[i]).Overlaps(box)) out->push_back(order[i]);
      }
      continue;
    }
    assert(depth + 2 <= 64);
    stack[depth++] = node.right;
    stack[depth++] = node.left;
  }
}

MeshSurfacePoint NearestSurfacePoint(const TriangleMesh& mesh, const Vec3& p) {
  MeshSurfacePoint best;
  best.distance = std::numeric_limits<double>::infinity();
  if (mesh.nodes.empty()) return best;
  // Depth-first, nearer child first, skipping nodes farther than the best so far.
  double best2 = std::numeric_limits<double>::infinity();
  int stack[64];
  int depth = 0;
  stack[depth++] = 0;
  while (depth > 0) {
    const TriangleMesh::Node& node = mesh.nodes[stack[--depth]];
    if (BoxDistance2(node.bounds, p) >= best2) continue;
    if (node.left < 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        const int t = mesh.order[i];
        const Vec3 a = mesh.Corner(t, 0), b = mesh.Corner(t, 1), c = mesh.Corner(t, 2);
        const Vec3 w = ClosestPointBarycentric(p, a, b, c);
        const Vec3 q = w[0] * a + w[1] * b + w[2] * c;
        const double d2 = (p - q).squaredNorm();
        if (d2 < best2) {
          best2 = d2;
          best.point = q;
          best.triangle = t;
        }
      }
      continue;
    }
    const TriangleMesh::Node& l = mesh.nodes[node.left];
    const TriangleMesh::Node& r = mesh.nodes[node.right];
    const bool left_first = BoxDistance2(l.bounds, p) <= BoxDistance2(r.bounds, p);
    assert(depth + 2 <= 64);
    stack[depth++] = left_first ? node.right : node.left;
    stack[depth++] = left_first ? node.left : node.right;
  }
  // Behind the nearest triangle, or on it: out along its front; else straight away.
  best.distance = std::sqrt(best2);
  const Vec3& n = mesh.normals[best.triangle];
  const Vec3 away = p - best.point;
  if (n.dot(away) < 0.0 || !(best.distance > 1e-12)) {
    if (n.dot(away) < 0.0) best.distance = -best.distance;
    best.normal = n;
  } else {
    best.normal = away / best.distance;
  }
  return best;
}

void MarkActiveEdges(double crease_angle, TriangleMesh* mesh) {
  const int n = static_cast<int>(mesh->triangles.size());
  // Each undirected edge (lower vertex first) with the (triangle, corner) sides along it.
  std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> sides;
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k < 3; ++k) {
      const int a = mesh->triangles[t][k], b = mesh->triangles[t][(k + 1) % 3];
      sides[{std::min(a, b), std::max(a, b)}].push_back({t, k});
    }
  }
  const double cos_crease = std::cos(crease_angle);
  mesh->active_edges.assign(n, 0);
  for (const auto& [edge, along] : sides) {
    if (along.size() != 2) {
      for (const auto& [t, k] : along) mesh->active_edges[t] |= uint8_t(1u << k);
      continue;
    }
    const auto [t0, k0] = along[0];
    const auto [t1, k1] = along[1];
    // A neighbour wound the other way round (the edge runs the same direction in both)
    // faces the other way: its normal is flipped for the comparison.
    const bool same_direction = mesh->triangles[t0][k0] == mesh->triangles[t1][k1];
    const Vec3 n0 = mesh->normals[t0];
    const Vec3 n1 = same_direction ? Vec3(-mesh->normals[t1]) : mesh->normals[t1];
    // Convex when the neighbour's far corner lies behind this triangle's plane.
    const Vec3& far = mesh->Corner(t1, (k1 + 2) % 3);
    const bool convex = n0.dot(far - mesh->Corner(t0, k0)) < 0.0;
    if (convex && n0.dot(n1) < cos_crease) {
      mesh->active_edges[t0] |= uint8_t(1u << k0);
      mesh->active_edges[t1] |= uint8_t(1u << k1);
    }
  }
}

void BuildMeshTree(int leaf_size, TriangleMesh* mesh) {
  assert(leaf_size >= 1);
  const int n = static_cast<int>(mesh->triangles.size());
  mesh->nodes.clear();
  mesh->order.resize(n);
  for (int t = 0; t < n; ++t) mesh->order[t] = t;
  mesh->local_min = mesh->local_max = Vec3::Zero();
  mesh->ray_tree.Build({});
  mesh->ray_edges.clear();
  if (n == 0) return;
  std::vector<Vec3> centres(n);
  for (int t = 0; t < n; ++t) {
    centres[t] = (mesh->Corner(t, 0) + mesh->Corner(t, 1) + mesh->Corner(t, 2)) / 3.0;
  }
  mesh->nodes.reserve(2 * (n / leaf_size + 1));
  mesh->nodes.emplace_back();
  BuildNode(0, 0, n, leaf_size, centres, mesh);
  mesh->local_min = mesh->nodes[0].bounds.min;
  mesh->local_max = mesh->nodes[0].bounds.max;
  std::vector<Aabb> bounds(n);
  mesh->ray_edges.resize(n);
  for (int t = 0; t < n; ++t) {
    bounds[t] = TriangleBounds(*mesh, t);
    const Vec3& a = mesh->Corner(t, 0);
    mesh->ray_edges[t] = {a, mesh->Corner(t, 1) - a, mesh->Corner(t, 2) - a};
  }
  mesh->ray_tree.Build(bounds);
}

}  // namespace ligature
