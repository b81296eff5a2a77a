// Soft bodies against rigid bodies through the world's Gauss-Seidel solve.
//
// The FEM soft bodies take their free motion with the rigid bodies' (IntegrateSoftFreeMotion).
// Each boundary vertex of theirs near a rigid shape is then a contact found like the rigid
// ones: at the start-of-tick positions, within the contact margin plus how far the vertex
// and the body move over the step (speculative, so that a vertex does not pass a thin
// shape in one tick). The contacted vertices become solver bodies with linear DOFs only,
// numbered after the rigid bodies; their contacts are unilateral rows with Coulomb friction
// (the soft body's coefficient and the shape's, combined as two rigid bodies' are), and
// their compliance is the soft body's over the step: for a corotational body h^2 A^-1 of
// its implicit system, coupling all its contacted vertices; otherwise each vertex's lumped
// h^2 / m. The solve thus exchanges momentum between soft and rigid bodies as between two
// rigid ones; the solved forces then move the soft bodies (ApplySoftContactForces).
//
// The tunable pipeline has none of this: there the soft bodies step after the rigid bodies
// and are projected out of their shapes (SoftWorld::Step), as mass-point bodies always are.

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/collision/narrowphase.h"
#include "server/constraint/contact_rows.h"
#include "server/world/world.h"

namespace ligature {
namespace {

// The radius of the sphere that stands for a vertex in the narrowphase, m.
constexpr double kVertexProbe = 1e-5;

bool Inside(const Vec3& p, const Aabb& box, double grow) {
  return ((box.min.array() - grow) <= p.array()).all() &&
         (p.array() <= (box.max.array() + grow)).all();
}

// Calls fn(first, end, points) for each run of points of one soft body: the solver's soft
// points are numbered body by body (GroupSoftPoints), so each body's form one run.
template <class Points, class Fn>
void ForEachBodyRun(const Points& points, Fn fn) {
  std::vector<SoftWorld::WeightedPoint> run;
  for (size_t first = 0; first < points.size();) {
    size_t end = first;
    run.clear();
    while (end < points.size() && points[end].soft == points[first].soft) {
      run.push_back(points[end].at);
      ++end;
    }
    fn(first, end, run);
    first = end;
  }
}

}  // namespace

void World::IntegrateSoftFreeMotion() {
  if (soft_.empty() || settings_.solver.kind != SolverKind::kGaussSeidel) return;
  soft_.StepFreeMotion(settings_.dt(), settings_.gravity);
}

// Per soft body that stepped, its boundary vertices (held ones excepted) against every
// rigid body whose bounds meet the body's swept bounds. Handles (bodies that soft or rod
// constraints follow) are no obstacles, and a body that can be cut meets scalpels only at
// their tips (SoftWorld's cutting).
void World::DetectSoftContacts() {
  soft_contacts_.clear();
  soft_points_.clear();
  soft_pair_contacts_.clear();
  if (soft_.empty() || settings_.solver.kind != SolverKind::kGaussSeidel) return;
  const double h = settings_.dt();
  const double margin = settings_.contact_margin;
  const absl::flat_hash_set<uint32_t> handles = Handles();
  const Shape probe = Shape::Sphere(kVertexProbe);
  ContactManifold manifold;
  std::vector<int> boundary;
  std::vector<int> point_of;
  const auto& soft_bodies = soft_.bodies();
  for (size_t s = 0; s < soft_bodies.size(); ++s) {
    const SoftWorld::Body& body = soft_bodies[s];
    if (!body.stepped) continue;
    const std::vector<Vec3>& start = body.start;
    const std::vector<Vec3>& x = body.positions();
    const std::vector<char>& fixed = body.fem_rest()->fixed;
    boundary.clear();
    for (const int v : body.surface_vertices) {
      if (fixed[v] == 0) boundary.push_back(v);
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
    const size_t points_before = soft_points_.size();
    const size_t contacts_before = soft_contacts_.size();
    for (int i = 0; i < bodies_.size(); ++i) {
      if (handles.contains(static_cast<uint32_t>(i))) continue;
      if (body.desc.cutting && scalpels_.contains(bodies_.id[i])) continue;
      if (!swept.Overlaps(aabbs_[i])) continue;
      const Transform pose{bodies_.position[i], bodies_.orientation[i]};
      const double reach_rigid = h * bodies_.linear_velocity[i].norm();
      for (const int v : boundary) {
        const double reach = (x[v] - start[v]).norm();
        // aabbs_ already grew by half the margin and the rigid body's reach.
        if (!Inside(start[v], aabbs_[i], 0.5 * margin + reach)) continue;
        for (const ChildShape& child : bodies_.shapes[i]) {
          manifold.count = 0;
          Collide(probe, Transform{start[v], Quat::Identity()}, child.shape, pose * child.local,
                  margin + reach + reach_rigid, &manifold);
          for (int k = 0; k < manifold.count; ++k) {
            if (point_of[v] < 0) {
              point_of[v] = static_cast<int>(soft_points_.size());
              soft_points_.push_back({static_cast<int>(s), SoftWorld::WeightedPoint::Vertex(v)});
            }
            ContactPoint c = manifold.points[k];
            c.distance += kVertexProbe;  // the vertex's own distance
            soft_contacts_.push_back({static_cast<int>(s), v, static_cast<uint32_t>(point_of[v]),
                                      static_cast<uint32_t>(i), c});
          }
        }
      }
    }
    // A corotational body with more contacted vertices than its coupled compliance may
    // take is projected instead (its lumped compliance would couple its vertices too
    // weakly to keep a very soft body from inverting).
    if (body.fem && body.factorized &&
        soft_points_.size() - points_before >
            static_cast<size_t>(soft_.MaxCoupledPoints(static_cast<int>(s)))) {
      soft_points_.resize(points_before);
      soft_contacts_.resize(contacts_before);
      soft_.ProjectContacts(static_cast<int>(s));
    }
  }
  DetectSoftPairContacts();
  GroupSoftPoints();
  stats_.contacts += static_cast<int>(soft_contacts_.size() + soft_pair_contacts_.size());
}

// One contact block per soft contact, after the rigid contacts and the joints, warm-started
// from last tick's force at the same vertex against the same body.
void World::BuildSoftContactRows() {
  soft_first_block_ = rows_.blocks.size();
  const double h = settings_.dt();
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  for (const SoftContact& c : soft_contacts_) {
    const SoftWorld::Body& body = soft_.bodies()[c.soft];
    const ContactBody a = PointBody(n + c.point, c.contact.position,
                                    (body.positions()[c.vertex] - body.start[c.vertex]) / h);
    const ContactBody b = RigidContactBody(c.rigid, bodies_.position[c.rigid]);
    const double mu = std::sqrt(body.desc.friction * bodies_.material[c.rigid].friction);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, mu, h);
    WarmStartBlock(soft_warm_, {c.soft, c.vertex, c.rigid}, &block);
    rows_.blocks.push_back(block);
  }
  BuildSoftPairRows();
}

// The contacted vertices' compliance: one coupled group per corotational body whose
// implicit system can give it, the lumped h^2 / m of each vertex otherwise.
void World::AddSoftCompliance() {
  soft_groups_.clear();
  if (soft_points_.empty()) return;
  const double h = settings_.dt();
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  compliance_.resize(n + soft_points_.size());
  ForEachBodyRun(soft_points_, [&](size_t first, size_t end,
                                   const std::vector<SoftWorld::WeightedPoint>& points) {
    const int soft = soft_points_[first].soft;
    std::optional<Eigen::MatrixXd> coupled = soft_.CoupledCompliance(soft, points);
    if (coupled) {
      soft_groups_.push_back({static_cast<uint32_t>(n + first),
                              static_cast<int>(points.size()), *std::move(coupled)});
    }
    for (size_t p = first; p < end; ++p) {
      BodyCompliance& c = compliance_[n + p];
      c.linear = coupled ? 0.0 : soft_.LumpedCompliance(soft, soft_points_[p].at, h);
      c.angular.setZero();
    }
  });
}

// Each soft body takes the forces on its contacted vertices (their rows' Jacobians on the
// vertex carry them back), through its implicit system when its points were coupled; the
// forces are kept for the next tick's warm start.
void World::ApplySoftContactForces() {
  soft_warm_.clear();
  soft_pair_warm_.clear();
  soft_solver_pushes_.clear();
  if (soft_points_.empty()) return;
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  const double h = settings_.dt();
  std::vector<Vec3> forces(soft_points_.size(), Vec3::Zero());
  for (size_t k = 0; k < soft_contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[soft_first_block_ + k];
    const SoftContact& c = soft_contacts_[k];
    forces[c.point] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    soft_warm_[{c.soft, c.vertex, c.rigid}] = b.force;
    if (bodies_.IsDynamic(c.rigid) && !b.force.isZero()) {
      soft_solver_pushes_.push_back({c.rigid, c.contact.position,
                                     h * (b.jacobian_b.leftCols<3>().transpose() * b.force),
                                     c.soft, c.vertex});
    }
  }
  for (size_t k = 0; k < soft_pair_contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[soft_pair_first_block_ + k];
    const SoftPairContact& c = soft_pair_contacts_[k];
    forces[c.point_a] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    forces[c.point_b] += b.jacobian_b.leftCols<3>().transpose() * b.force;
    soft_pair_warm_[{c.soft_a, c.vertex, c.soft_b}] = b.force;
  }
  for (size_t k = 0; k < rod_soft_contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[rod_soft_first_block_ + k];
    forces[rod_soft_contacts_[k].soft_point] +=
        b.jacobian_b.leftCols<3>().transpose() * b.force;
  }
  ForEachBodyRun(soft_points_, [&](size_t first, size_t end,
                                   const std::vector<SoftWorld::WeightedPoint>& points) {
    const bool coupled = std::any_of(soft_groups_.begin(), soft_groups_.end(),
                                     [&](const CoupledPoints& g) { return g.first == n + first; });
    soft_.ApplyContactForces(soft_points_[first].soft, points,
                             std::span<const Vec3>(forces).subspan(first, end - first),
                             h, coupled);
  });
}

// The solve's contact forces as impulses over the step (the solvers' forces act for h).
void World::RecordContacts() {
  last_contacts_.clear();
  const double h = settings_.dt();
  const auto record = [&](const ConstraintBlock& b, ContactRecord r) {
    r.normal_impulse = h * b.force.x();
    r.impulse = h * (b.jacobian_b.leftCols<3>().transpose() * b.force);
    last_contacts_.push_back(r);
  };
  for (size_t k = 0; k < contacts_.size() && k < rows_.blocks.size(); ++k) {
    record(rows_.blocks[k],
           {false, false, contacts_[k].a, contacts_[k].b, false, -1, contacts_[k].point});
  }
  for (size_t k = 0; k < soft_contacts_.size(); ++k) {
    const SoftContact& c = soft_contacts_[k];
    record(rows_.blocks[soft_first_block_ + k],
           {true, false, static_cast<uint32_t>(c.soft), c.rigid, false, c.vertex, c.contact});
  }
  for (size_t k = 0; k < soft_pair_contacts_.size(); ++k) {
    const SoftPairContact& c = soft_pair_contacts_[k];
    record(rows_.blocks[soft_pair_first_block_ + k],
           {true, false, static_cast<uint32_t>(c.soft_a), static_cast<uint32_t>(c.soft_b), true,
            c.vertex, c.contact});
  }
  for (size_t k = 0; k < rod_contacts_.size(); ++k) {
    const RodSolverContact& c = rod_contacts_[k];
    record(rows_.blocks[rod_first_block_ + k],
           {false, true, static_cast<uint32_t>(c.rod), c.rigid, false, -1, c.contact});
  }
  for (size_t k = 0; k < rod_soft_contacts_.size(); ++k) {
    const RodSoftContact& c = rod_soft_contacts_[k];
    record(rows_.blocks[rod_soft_first_block_ + k],
           {false, true, static_cast<uint32_t>(c.rod), static_cast<uint32_t>(c.soft), true, -1,
            c.contact});
  }
}

std::vector<World::ContactReport> World::LastContacts() const {
  std::vector<ContactReport> out;
  out.reserve(last_contacts_.size());
  for (const ContactRecord& r : last_contacts_) {
    ContactReport c;
    if (r.soft) {
      if (r.a >= soft_.bodies().size()) continue;
      c.a = soft_.bodies()[r.a].desc.id;
    } else if (r.rod) {
      if (r.a >= rods_.rods().size()) continue;
      c.a = rods_.rods()[r.a].desc.id;
    } else {
      if (r.a >= static_cast<uint32_t>(bodies_.size())) continue;
      c.a = bodies_.id[r.a];
    }
    if (r.soft_b) {
      if (r.b >= soft_.bodies().size()) continue;
      c.b = soft_.bodies()[r.b].desc.id;
    } else {
      if (r.b >= static_cast<uint32_t>(bodies_.size())) continue;
      c.b = bodies_.id[r.b];
    }
    c.vertex = r.vertex;
    c.point = r.contact.position;
    c.normal = r.contact.normal;
    c.normal_impulse = r.normal_impulse;
    c.impulse = r.impulse;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ligature
