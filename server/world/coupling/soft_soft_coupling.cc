// Soft bodies against each other through the world's Gauss-Seidel solve.
//
// Each boundary vertex of one soft body that stepped is tested against the other bodies'
// surface triangles at the start-of-tick positions, within the contact margin plus how far
// the vertex and the other body's surface move over the step (speculative, as the rigid
// contacts are). The contact joins the vertex, a solver point of its body, to the closest
// point of the nearest triangle, a solver point of the other body that moves as its
// triangle's vertices do (barycentric weights; a force on it spreads over them by the same
// weights). Both points belong to their bodies' compliance groups (soft_points.h), so the
// solve exchanges momentum between the two bodies and, through each body's implicit
// system, spreads the contact over it. The normal is the triangle's outward one, so a
// vertex slightly inside the other body is pushed back out through its nearest face.
// Vertex-face pairs in both directions are tested; edge-edge crossings are not.

#include "server/world/coupling/soft_soft_coupling.h"

#include <cassert>
#include <cmath>
#include <optional>

#include "server/constraint/contact_rows.h"
#include "server/world/soft/soft_surface_query.h"

namespace ligature {

// Every ordered pair of soft bodies that stepped, whose swept bounds meet: the first's
// boundary vertices (held ones excepted) against the second's surface. A vertex that
// already has a point (from the soft-rigid contacts) shares it.
void SoftSoftCoupling::FindContacts(const WorldView& w, StepContext& ctx) {
  contacts_.clear();
  if (w.soft.empty()) return;
  const auto& soft_bodies = w.soft.bodies();
  std::vector<int> stepped;
  for (size_t s = 0; s < soft_bodies.size(); ++s) {
    if (soft_bodies[s].stepped && !soft_bodies[s].surface_vertices.empty()) {
      stepped.push_back(static_cast<int>(s));
    }
  }
  if (stepped.size() < 2) return;
  const double margin = w.settings.contact_margin;
  std::vector<SweptBoundary> swept(soft_bodies.size());
  for (const int s : stepped) swept[s] = Sweep(soft_bodies[s], margin);
  std::vector<SoftPoint>& points = ctx.soft_points;
  // The points the rigid contacts gave the bodies' vertices, to be shared.
  absl::flat_hash_map<std::pair<int, int>, uint32_t> vertex_point;
  for (size_t p = 0; p < points.size(); ++p) {
    vertex_point[{points[p].soft, points[p].at.vertex[0]}] = static_cast<uint32_t>(p);
  }
  const auto point_of_vertex = [&](int soft, int v) {
    auto [it, added] = vertex_point.try_emplace({soft, v}, points.size());
    if (added) points.push_back({soft, SoftWorld::WeightedPoint::Vertex(v)});
    return it->second;
  };
  TriangleGrid grid;
  for (const int b : stepped) {
    const SoftWorld::Body& target = soft_bodies[b];
    bool built = false;
    for (const int a : stepped) {
      const SoftWorld::Body& body = soft_bodies[a];
      if (a == b || !body.desc.collision.Meets(target.desc.collision) ||
          !swept[a].bounds.Overlaps(swept[b].bounds)) {
        continue;
      }
      const double reach = margin + swept[a].reach + swept[b].reach;
      if (!built) {
        grid.Build(target.surface.triangles, target.start, reach);
        built = true;
      }
      const double mu = std::sqrt(body.desc.friction * target.desc.friction);
      for (const int v : body.surface_vertices) {
        const Vec3& p = body.start[v];
        if (body.held(v) || !Contains(swept[b].bounds, p)) continue;
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
        const uint32_t point_b = static_cast<uint32_t>(points.size());
        points.push_back({b, at});
        contacts_.push_back({a, v, point_a, b, point_b, c, mu});
      }
    }
  }
}

// One contact block per contact, after the soft-rigid ones.
void SoftSoftCoupling::BuildRows(const WorldView& w, StepContext& ctx) {
  first_block_ = ctx.rows.blocks.size();
  const double h = w.settings.dt();
  const uint32_t n = static_cast<uint32_t>(w.bodies.size());
  for (const Contact& c : contacts_) {
    const Vec3& at = c.contact.position;
    const ContactBody a = PointBody(
        n + c.point_a, at, w.soft.PointMotion(c.soft_a, ctx.soft_points[c.point_a].at) / h);
    const ContactBody b = PointBody(
        n + c.point_b, at, w.soft.PointMotion(c.soft_b, ctx.soft_points[c.point_b].at) / h);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, c.friction, h);
    WarmStartBlock(warm_, {c.soft_a, c.vertex, c.soft_b}, &block);
    ctx.rows.blocks.push_back(block);
  }
}

// Both points' forces join their sums; the forces are kept for the next tick's warm start.
void SoftSoftCoupling::ApplySolvedForces(const WorldView&, StepContext& ctx) {
  warm_.clear();
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const ConstraintBlock& b = ctx.rows.blocks[first_block_ + k];
    const Contact& c = contacts_[k];
    assert(c.point_a < ctx.soft_point_forces.size() && c.point_b < ctx.soft_point_forces.size());
    ctx.soft_point_forces[c.point_a] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    ctx.soft_point_forces[c.point_b] += b.jacobian_b.leftCols<3>().transpose() * b.force;
    warm_[{c.soft_a, c.vertex, c.soft_b}] = b.force;
  }
}

void SoftSoftCoupling::ForEachContact(
    absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    fn(first_block_ + k, {true, false, static_cast<uint32_t>(c.soft_a),
                          static_cast<uint32_t>(c.soft_b), true, c.vertex, c.contact});
  }
}

void SoftSoftCoupling::RenumberSoftPoints(std::span<const uint32_t> new_index) {
  for (Contact& c : contacts_) {
    c.point_a = new_index[c.point_a];
    c.point_b = new_index[c.point_b];
  }
}

void SoftSoftCoupling::SaveWarmStart(WorldSavedState* s) const {
  s->soft_pair_warm = SortedEntries(warm_);
}

void SoftSoftCoupling::RestoreWarmStart(const WorldSavedState& s) {
  for (const auto& [key, force] : s.soft_pair_warm) warm_[key] = force;
}

}  // namespace ligature
