// Soft bodies against each other through the world's Gauss-Seidel solve.
//
// Each boundary vertex of one FEM body that stepped is tested against the other bodies'
// surface triangles at the start-of-tick positions, within the contact margin plus how far
// the vertex and the other body's surface move over the step (speculative, as the rigid
// contacts are). The contact joins the vertex, a solver point of its body, to the closest
// point of the nearest triangle, a solver point of the other body that moves as its
// triangle's vertices do (barycentric weights; a force on it spreads over them by the same
// weights). Both points belong to their bodies' compliance groups (AddSoftCompliance), so
// the solve exchanges momentum between the two bodies and, through each body's implicit
// system, spreads the contact over it. The normal is the triangle's outward one, so a
// vertex slightly inside the other body is pushed back out through its nearest face.
// Vertex-face pairs in both directions are tested; edge-edge crossings are not.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "server/collision/triangle_grid.h"
#include "server/constraint/contact_rows.h"
#include "server/constraint/soft/local_constraints.h"
#include "server/world/world.h"

namespace ligature {
namespace {

// A body's boundary over the step: its bounds (both ends, grown by `grow`) and the
// farthest any boundary vertex moves.
struct SweptBoundary {
  Aabb bounds;
  double reach = 0.0;
};

SweptBoundary Sweep(const SoftWorld::Body& body, double grow) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  SweptBoundary s{{Vec3::Constant(kInf), Vec3::Constant(-kInf)}, 0.0};
  const std::vector<Vec3>& x = body.positions();
  for (const int v : body.surface_vertices) {
    s.bounds.min = s.bounds.min.cwiseMin(body.start[v]).cwiseMin(x[v]);
    s.bounds.max = s.bounds.max.cwiseMax(body.start[v]).cwiseMax(x[v]);
    s.reach = std::max(s.reach, (x[v] - body.start[v]).norm());
  }
  s.bounds.min.array() -= grow;
  s.bounds.max.array() += grow;
  return s;
}

bool Contains(const Aabb& box, const Vec3& p) {
  return (box.min.array() <= p.array()).all() && (p.array() <= box.max.array()).all();
}

// The nearest surface point of `body` (at its start positions) to p among the grid's
// candidates, with the outward normal of its triangle; nothing when none is within reach.
struct SurfaceHit {
  int triangle = -1;
  Vec3 barycentric = Vec3::Zero();
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();
};

std::optional<SurfaceHit> NearestSurfacePoint(const SoftWorld::Body& body,
                                              const TriangleGrid& grid, const Vec3& p,
                                              double reach) {
  const std::vector<Vec3>& x = body.start;
  std::optional<SurfaceHit> best;
  double best_d2 = reach * reach;
  for (const int t : grid.Near(p)) {
    const std::array<int, 3>& tri = body.surface.triangles[t];
    const Vec3 w = ClosestPointBarycentric(p, x[tri[0]], x[tri[1]], x[tri[2]]);
    const Vec3 q = w.x() * x[tri[0]] + w.y() * x[tri[1]] + w.z() * x[tri[2]];
    const double d2 = (p - q).squaredNorm();
    if (d2 > best_d2) continue;
    const Vec3 n = (x[tri[1]] - x[tri[0]]).cross(x[tri[2]] - x[tri[0]]);
    if (!(n.squaredNorm() > 0.0)) continue;
    best_d2 = d2;
    best = SurfaceHit{t, w, q, n.normalized()};
  }
  return best;
}

}  // namespace

// Every ordered pair of FEM bodies that stepped, whose swept bounds meet: the first's
// boundary vertices (held ones excepted) against the second's surface.
void World::DetectSoftPairContacts() {
  const auto& soft_bodies = soft_.bodies();
  std::vector<int> stepped;
  for (size_t s = 0; s < soft_bodies.size(); ++s) {
    if (soft_bodies[s].stepped && !soft_bodies[s].surface_vertices.empty()) {
      stepped.push_back(static_cast<int>(s));
    }
  }
  if (stepped.size() < 2) return;
  const double margin = settings_.contact_margin;
  std::vector<SweptBoundary> swept(soft_bodies.size());
  for (const int s : stepped) swept[s] = Sweep(soft_bodies[s], margin);
  // The points the rigid contacts gave the bodies' vertices, to be shared.
  absl::flat_hash_map<std::pair<int, int>, uint32_t> vertex_point;
  for (size_t p = 0; p < soft_points_.size(); ++p) {
    vertex_point[{soft_points_[p].soft, soft_points_[p].at.vertex[0]}] = static_cast<uint32_t>(p);
  }
  const auto point_of_vertex = [&](int soft, int v) {
    auto [it, added] = vertex_point.try_emplace({soft, v}, soft_points_.size());
    if (added) soft_points_.push_back({soft, SoftWorld::WeightedPoint::Vertex(v)});
    return it->second;
  };
  TriangleGrid grid;
  for (const int b : stepped) {
    const SoftWorld::Body& target = soft_bodies[b];
    const std::vector<char>& held = target.fem_rest()->fixed;
    bool built = false;
    for (const int a : stepped) {
      if (a == b || !swept[a].bounds.Overlaps(swept[b].bounds)) continue;
      const SoftWorld::Body& body = soft_bodies[a];
      const double reach = margin + swept[a].reach + swept[b].reach;
      if (!built) {
        grid.Build(target.surface.triangles, target.start, reach);
        built = true;
      }
      const double mu = std::sqrt(body.desc.friction * target.desc.friction);
      for (const int v : body.surface_vertices) {
        const Vec3& p = body.start[v];
        if (body.fem_rest()->fixed[v] != 0 || !Contains(swept[b].bounds, p)) continue;
        const double vertex_reach = (body.positions()[v] - p).norm();
        const std::optional<SurfaceHit> hit = NearestSurfacePoint(
            target, grid, p, margin + vertex_reach + swept[b].reach);
        if (!hit) continue;
        // The surface point moves with its triangle's free vertices.
        SoftWorld::WeightedPoint at{target.surface.triangles[hit->triangle], hit->barycentric};
        for (int i = 0; i < 3; ++i) {
          if (held[at.vertex[i]] != 0) at.weight[i] = 0.0;
        }
        ContactPoint c;
        c.normal = -hit->normal;  // from the vertex towards the surface
        c.distance = (p - hit->point).dot(hit->normal);
        c.position = 0.5 * (p + hit->point);
        const uint32_t point_a = point_of_vertex(a, v);
        const uint32_t point_b = static_cast<uint32_t>(soft_points_.size());
        soft_points_.push_back({b, at});
        soft_pair_contacts_.push_back({a, v, point_a, b, point_b, c, mu});
      }
    }
  }
}

// Renumbers the soft points body by body (a stable sort: the rigid contacts' points came
// that way already), so that each body's points form one run for its compliance group.
void World::GroupSoftPoints() {
  if (soft_pair_contacts_.empty()) return;
  std::vector<uint32_t> order(soft_points_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    return soft_points_[x].soft < soft_points_[y].soft;
  });
  std::vector<uint32_t> new_index(order.size());
  std::vector<SoftPoint> points(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    new_index[order[k]] = static_cast<uint32_t>(k);
    points[k] = soft_points_[order[k]];
  }
  soft_points_ = std::move(points);
  for (SoftContact& c : soft_contacts_) c.point = new_index[c.point];
  for (SoftPairContact& c : soft_pair_contacts_) {
    c.point_a = new_index[c.point_a];
    c.point_b = new_index[c.point_b];
  }
}

// One contact block per soft-soft contact, after the soft-rigid ones, warm-started from
// last tick's force at the same vertex against the same body.
void World::BuildSoftPairRows() {
  soft_pair_first_block_ = rows_.blocks.size();
  const double h = settings_.dt();
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  const auto& soft_bodies = soft_.bodies();
  for (const SoftPairContact& c : soft_pair_contacts_) {
    const SoftWorld::Body& body_a = soft_bodies[c.soft_a];
    const SoftWorld::Body& body_b = soft_bodies[c.soft_b];
    const SoftWorld::WeightedPoint& at = soft_points_[c.point_b].at;
    ContactBody a;
    a.index = n + c.point_a;
    a.origin = c.contact.position;
    a.linear_velocity = (body_a.positions()[c.vertex] - body_a.start[c.vertex]) / h;
    ContactBody b;
    b.index = n + c.point_b;
    b.origin = c.contact.position;
    for (int i = 0; i < 3; ++i) {
      const int v = at.vertex[i];
      b.linear_velocity += at.weight[i] * (body_b.positions()[v] - body_b.start[v]) / h;
    }
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, c.friction, h);
    auto warm = soft_pair_warm_.find({c.soft_a, c.vertex, c.soft_b});
    if (warm != soft_pair_warm_.end()) block.force.head(block.dim) = warm->second.head(block.dim);
    rows_.blocks.push_back(block);
  }
}

}  // namespace ligature
