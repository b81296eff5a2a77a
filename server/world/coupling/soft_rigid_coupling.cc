// Soft bodies against rigid bodies through the world's constraint solve.
//
// The soft bodies take their free motion with the rigid bodies'. Each boundary vertex
// of theirs near a rigid shape is then a contact found like the rigid ones: at the
// start-of-tick positions, within the contact margin plus how far the vertex and the body
// move over the step (speculative, so that a vertex does not pass a thin shape in one
// tick). The contacted vertices become solver points with linear DOFs only, numbered after
// the rigid bodies (StepContext::soft_points); their contacts are unilateral rows with
// Coulomb friction (the soft body's coefficient and the shape's, combined as two rigid
// bodies' are), and their compliance is the soft body's over the step (soft_points.h). The
// solve thus exchanges momentum between soft and rigid bodies as between two rigid ones;
// the solved forces then move the soft bodies.
//
// A vertex test misses a rigid edge or corner (or a thin sphere or capsule) pressed into the
// middle of a coarse triangle; so each such feature of the rigid body's shapes over a
// surface triangle is a contact too, between the body and a solver point on the triangle
// that moves as its vertices do (barycentric weights), along the triangle's outward normal
// (or, beside its edge, the line from the edge to the feature). A haptic tool meets faces
// as its local model does (it carries the triangles between the buffer's vertices): only
// with its features that have no vertex of the body within kToolVertexReach.
//
// The tunable pipeline builds the same rows for its velocity pass (World::SolveTunable).

#include "server/world/coupling/soft_rigid_coupling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "server/collision/narrowphase.h"
#include "server/constraint/contact_rows.h"
#include "server/geometry/shape_features.h"
#include "server/haptics/local_model.h"

namespace ligature {
namespace {

// The radius of the sphere that stands for a vertex in the narrowphase, m.
constexpr double kVertexProbe = 1e-5;
// How deep below a surface triangle a rigid feature may be for the face to push it out, m:
// the solve keeps resting contacts within the slop, and a feature deeper than this may have
// come in through another face. A feature that no face holds within this depth is pushed
// out by every face it is sunk under, down to kMaxSunkDepth: a probe pressed into soft
// tissue faster than its surface gives way sinks deeper than this in a tick, and must not
// then slip under the surface.
constexpr double kMaxFaceDepth = 2.0 * kPenetrationSlop;

// The warm key of a face contact whose triangle and feature numbers do not fit an int.
constexpr int kNoWarmKey = std::numeric_limits<int>::min();

// Whether one of the surface vertices is within kToolVertexReach of feature f at the start
// of the tick.
bool VertexNear(const ShapeFeature& f, const std::vector<Vec3>& start,
                const std::vector<int>& surface_vertices) {
  return std::ranges::any_of(surface_vertices, [&](int v) {
    return FeatureDistance(f, start[v]) < haptics::kToolVertexReach;
  });
}

bool Inside(const Vec3& p, const Aabb& box, double grow) {
  return ((box.min.array() - grow) <= p.array()).all() &&
         (p.array() <= (box.max.array() + grow)).all();
}

}  // namespace

// Per soft body that stepped, its boundary vertices (held ones excepted) against every
// rigid body whose bounds meet the body's swept bounds. Handles (bodies that soft or rod
// constraints follow) are no obstacles, and a body that can be cut meets scalpels only at
// their tips (SoftWorld's cutting).
void SoftRigidCoupling::FindContacts(const WorldView& w, StepContext& ctx) {
  contacts_.clear();
  if (w.soft.empty()) return;
  const double h = w.settings.dt();
  const double margin = w.settings.contact_margin;
  const bool speculative = w.settings.solver.kind == SolverKind::kGaussSeidel;
  const absl::flat_hash_set<uint32_t> handles = w.Handles();
  const Shape probe = Shape::Sphere(kVertexProbe);
  const RigidBodies& bodies = w.bodies;
  const std::vector<Aabb>& aabbs = ctx.aabbs;
  ContactManifold manifold;
  std::vector<int> boundary;
  std::vector<int> point_of;
  SurfaceBounds faces;
  const auto& soft_bodies = w.soft.bodies();
  for (size_t s = 0; s < soft_bodies.size(); ++s) {
    const SoftWorld::Body& body = soft_bodies[s];
    if (!body.stepped) continue;
    faces.clear();
    const std::vector<Vec3>& start = body.start;
    const std::vector<Vec3>& x = body.positions();
    boundary.clear();
    for (const int v : body.surface_vertices) {
      if (!body.held(v)) boundary.push_back(v);
    }
    if (boundary.empty()) continue;
    // The body's bounds over the step.
    constexpr double kInf = std::numeric_limits<double>::infinity();
    Aabb swept{Vec3::Constant(kInf), Vec3::Constant(-kInf)};
    for (const int v : boundary) {
      swept.min = swept.min.cwiseMin(start[v]).cwiseMin(x[v]);
      swept.max = swept.max.cwiseMax(start[v]).cwiseMax(x[v]);
    }
    swept.min.array() -= margin;
    swept.max.array() += margin;
    point_of.assign(x.size(), -1);
    const size_t points_before = ctx.soft_points.size();
    const size_t contacts_before = contacts_.size();
    for (int i = 0; i < bodies.size(); ++i) {
      if (handles.contains(static_cast<uint32_t>(i))) continue;
      if (body.desc.cutting && w.scalpels.contains(bodies.id[i])) continue;
      // Gauss-Seidel's bounds grew by half the margin and the body's reach over the step
      // already; the tunable pipeline's are at the free-motion pose, and grow by that reach
      // here.
      const double reach_rigid = h * bodies.linear_velocity[i].norm();
      Aabb bounds = aabbs[i];
      if (!speculative) {
        bounds.min.array() -= reach_rigid;
        bounds.max.array() += reach_rigid;
      }
      if (!swept.Overlaps(bounds)) continue;
      const Transform pose{bodies.position[i], bodies.orientation[i]};
      for (const int v : boundary) {
        const double reach = (x[v] - start[v]).norm();
        if (!Inside(start[v], bounds, 0.5 * margin + reach)) continue;
        for (size_t k = 0; k < bodies.shapes[i].size(); ++k) {
          const ChildShape& child = bodies.shapes[i][k];
          // Sensors push nothing; layers the body's filter refuses are passed through.
          const CollisionFilter& filter = bodies.ChildFilter(i, k);
          if (filter.sensor || !body.desc.collision.Meets(filter)) continue;
          manifold.count = 0;
          Collide(probe, Transform{start[v], Quat::Identity()}, child.shape, pose * child.local,
                  margin + reach + reach_rigid, &manifold);
          for (int k = 0; k < manifold.count; ++k) {
            if (point_of[v] < 0) {
              point_of[v] = static_cast<int>(ctx.soft_points.size());
              ctx.soft_points.push_back(
                  {static_cast<int>(s), SoftWorld::WeightedPoint::Vertex(v)});
            }
            ContactPoint c = manifold.points[k];
            c.distance += kVertexProbe;  // the vertex's own distance
            contacts_.push_back({static_cast<int>(s), v, static_cast<uint32_t>(point_of[v]),
                                 static_cast<uint32_t>(i), c, v});
          }
        }
      }
      const bool tool = static_cast<size_t>(i) < ctx.haptic_tool.size() && ctx.haptic_tool[i];
      FindFaceContacts(w, ctx, static_cast<int>(s), static_cast<uint32_t>(i), tool, swept, &faces);
    }
    // A corotational body with more contacted vertices than its coupled compliance may
    // take is projected instead (its lumped compliance would couple its vertices too
    // weakly to keep a very soft body from inverting).
    if (body.fem && body.factorized &&
        ctx.soft_points.size() - points_before >
            static_cast<size_t>(SoftWorld::kMaxCoupledPoints)) {
      ctx.soft_points.resize(points_before);
      contacts_.resize(contacts_before);
      w.soft.ProjectContacts(static_cast<int>(s));
    }
  }
}

// The features of rigid body i's shapes (edges, corners, thin spheres and capsules) over
// soft body s's surface triangles, at the start of the tick and within the margin and both
// sides' motion over the step, as the vertices' contacts are found: each is a contact
// between a new solver point on the triangle (its vertices' barycentric weights, held ones
// at zero) and the rigid body, along the triangle's outward normal (or from its edge). A
// haptic tool's (`tool`) features meet faces only without a vertex within kToolVertexReach.
void SoftRigidCoupling::FindFaceContacts(const WorldView& w, StepContext& ctx, int s, uint32_t i,
                                         bool tool, const Aabb& swept, SurfaceBounds* faces) {
  const SoftWorld::Body& body = w.soft.bodies()[s];
  const RigidBodies& bodies = w.bodies;
  const double margin = w.settings.contact_margin;
  const double reach_rigid = w.settings.dt() * bodies.linear_velocity[i].norm();
  const Transform pose{bodies.position[i], bodies.orientation[i]};
  features_.clear();
  for (size_t k = 0; k < bodies.shapes[i].size(); ++k) {
    const CollisionFilter& filter = bodies.ChildFilter(i, k);
    if (filter.sensor || !body.desc.collision.Meets(filter)) continue;
    const ChildShape& child = bodies.shapes[i][k];
    AppendShapeFeatures(child.shape, pose * child.local, &features_);
  }
  if (features_.empty()) return;
  // Each triangle's bounds over the step, once per body.
  const std::vector<std::array<int, 3>>& triangles = body.surface.triangles;
  if (faces->empty()) {
    for (const auto& t : triangles) {
      Aabb box{body.start[t[0]], body.start[t[0]]};
      double reach = 0.0;
      for (const int v : t) {
        box.min = box.min.cwiseMin(body.start[v]);
        box.max = box.max.cwiseMax(body.start[v]);
        reach = std::max(reach, (body.positions()[v] - body.start[v]).norm());
      }
      faces->push_back({box, reach});
    }
  }
  // A contact between the rigid body and the point of triangle t under feature f (its hit k).
  const int64_t num_features = static_cast<int64_t>(features_.size());
  const auto add = [&](size_t t, size_t f, int k, const TriangleFeatureHit& hit) {
    const std::array<int, 3>& tri = triangles[t];
    SoftWorld::WeightedPoint at{tri, hit.barycentric};
    for (int j = 0; j < 3; ++j) {
      if (body.held(tri[j])) at.weight[j] = 0.0;
    }
    if (at.weight.isZero()) return false;
    ContactPoint c;
    c.normal = hit.normal;
    c.distance = hit.distance;
    c.position = 0.5 * (hit.on_triangle + hit.on_feature);
    const int64_t key =
        -1 - 2 * (static_cast<int64_t>(t) * num_features + static_cast<int64_t>(f)) - k;
    const int warm_key = key > kNoWarmKey ? static_cast<int>(key) : kNoWarmKey;
    contacts_.push_back({s, -1, static_cast<uint32_t>(ctx.soft_points.size()), i, c, warm_key});
    ctx.soft_points.push_back({s, at});
    return true;
  };
  std::array<TriangleFeatureHit, 2> hits;
  for (size_t fi = 0; fi < features_.size(); ++fi) {
    const ShapeFeature& f = features_[fi];
    const double grow = f.radius + margin + reach_rigid;
    const Aabb reach_of{f.a.cwiseMin(f.b) - Vec3::Constant(grow),
                        f.a.cwiseMax(f.b) + Vec3::Constant(grow)};
    if (!reach_of.Overlaps(swept)) continue;
    // A haptic tool's feature with a vertex within reach meets the body at its vertices.
    if (tool && VertexNear(f, body.start, body.surface_vertices)) continue;
    // Whether a face holds the feature within kMaxFaceDepth, and else the faces it is sunk
    // under.
    bool held = false;
    sunk_.clear();
    for (size_t t = 0; t < triangles.size(); ++t) {
      const auto& [bounds, reach] = (*faces)[t];
      const Aabb grown{bounds.min - Vec3::Constant(reach), bounds.max + Vec3::Constant(reach)};
      if (!grown.Overlaps(reach_of)) continue;
      const auto& tri = triangles[t];
      const int count =
          FeatureOverTriangle(f, body.start[tri[0]], body.start[tri[1]], body.start[tri[2]],
                              margin + reach + reach_rigid, kMaxSunkDepth, &hits);
      for (int k = 0; k < count; ++k) {
        if (hits[k].distance >= -kMaxFaceDepth) {
          held |= add(t, fi, k, hits[k]);
        } else {
          sunk_.push_back({t, k, hits[k]});
        }
      }
    }
    if (held) continue;
    for (const FaceHit& deep : sunk_) add(deep.triangle, fi, deep.k, deep.hit);
  }
}

// One contact block per contact, after the rigid contacts and the joints.
void SoftRigidCoupling::BuildRows(const WorldView& w, StepContext& ctx) {
  first_block_ = ctx.rows.blocks.size();
  const double h = w.settings.dt();
  const uint32_t n = static_cast<uint32_t>(w.bodies.size());
  for (const Contact& c : contacts_) {
    const SoftWorld::Body& body = w.soft.bodies()[c.soft];
    const ContactBody a = PointBody(n + c.point, c.contact.position,
                                    w.soft.PointMotion(c.soft, ctx.soft_points[c.point].at) / h);
    const ContactBody b = w.RigidContactBody(c.rigid, w.bodies.position[c.rigid]);
    const double mu = std::sqrt(body.desc.friction * w.bodies.material[c.rigid].friction);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, mu, h);
    if (c.warm_key != kNoWarmKey) WarmStartBlock(warm_, {c.soft, c.warm_key, c.rigid}, &block);
    ctx.rows.blocks.push_back(block);
  }
}

// Each vertex's force (its rows' Jacobians on the vertex carry it back) joins its point's
// sum; the forces are kept for the next tick's warm start, and their impulses on dynamic
// rigid bodies for the haptic buffers.
void SoftRigidCoupling::ApplySolvedForces(const WorldView& w, StepContext& ctx) {
  warm_.clear();
  ctx.soft_solver_pushes.clear();
  const double h = w.settings.dt();
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const ConstraintBlock& b = ctx.rows.blocks[first_block_ + k];
    const Contact& c = contacts_[k];
    assert(c.point < ctx.soft_point_forces.size());
    ctx.soft_point_forces[c.point] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    if (c.warm_key != kNoWarmKey) warm_[{c.soft, c.warm_key, c.rigid}] = b.force;
    if (!w.bodies.IsDynamic(c.rigid) || b.force.isZero()) continue;
    // A face's push is its vertices', by their weights.
    const Vec3 impulse = h * (b.jacobian_b.leftCols<3>().transpose() * b.force);
    const SoftWorld::WeightedPoint& at = ctx.soft_points[c.point].at;
    for (int j = 0; j < (c.vertex >= 0 ? 1 : 3); ++j) {
      if (at.weight[j] == 0.0) continue;
      ctx.soft_solver_pushes.push_back(
          {c.rigid, c.contact.position, at.weight[j] * impulse, c.soft, at.vertex[j]});
    }
  }
}

void SoftRigidCoupling::ForEachContact(
    absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    fn(first_block_ + k,
       {true, false, static_cast<uint32_t>(c.soft), c.rigid, false, c.vertex, c.contact});
  }
}

void SoftRigidCoupling::RenumberSoftPoints(std::span<const uint32_t> new_index) {
  for (Contact& c : contacts_) c.point = new_index[c.point];
}

void SoftRigidCoupling::SaveWarmStart(WorldSavedState* s) const {
  s->soft_warm = SortedEntries(warm_);
}

void SoftRigidCoupling::RestoreWarmStart(const WorldSavedState& s) {
  for (const auto& [key, force] : s.soft_warm) warm_[key] = force;
}

}  // namespace ligature
