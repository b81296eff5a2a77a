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

#include "server/constraint/contact_rows.h"
#include "server/world/soft/soft_surface_query.h"
#include "server/world/world.h"

namespace ligature {

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
        const SoftWorld::WeightedPoint at = HitPoint(target, *hit);
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
  const auto by_body = [&](const SoftPoint& x, const SoftPoint& y) { return x.soft < y.soft; };
  if (std::is_sorted(soft_points_.begin(), soft_points_.end(), by_body)) return;
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
  for (RodSoftContact& c : rod_soft_contacts_) c.soft_point = new_index[c.soft_point];
}

// One contact block per soft-soft contact, after the soft-rigid ones, warm-started from
// last tick's force at the same vertex against the same body.
void World::BuildSoftPairRows() {
  soft_pair_first_block_ = rows_.blocks.size();
  const double h = settings_.dt();
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  for (const SoftPairContact& c : soft_pair_contacts_) {
    const Vec3& at = c.contact.position;
    const ContactBody a =
        PointBody(n + c.point_a, at, soft_.PointMotion(c.soft_a, soft_points_[c.point_a].at) / h);
    const ContactBody b =
        PointBody(n + c.point_b, at, soft_.PointMotion(c.soft_b, soft_points_[c.point_b].at) / h);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, c.friction, h);
    WarmStartBlock(soft_pair_warm_, {c.soft_a, c.vertex, c.soft_b}, &block);
    rows_.blocks.push_back(block);
  }
}

}  // namespace ligature
