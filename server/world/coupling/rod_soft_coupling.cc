// Rods against soft bodies through the world's Gauss-Seidel solve.
//
// Before the rods' step, each dynamic rod's contact samples (at the start of the tick) are
// tested against the surface of every soft body that stepped, within the rod's radius, the
// contact margin and how far the sample and the surface move over the step (speculative,
// as the other contacts). A contact joins the rod point, a solver point of the rods'
// coupled groups (its compliance from their factorized system), to the nearest point of
// the body's surface, a solver point of the soft body's group (it moves as its triangle's
// vertices do). Both sides thus take the contact through their own implicit systems: a
// cable lying on tissue dents it and the tissue carries the cable's weight, in the same
// solve as every rigid contact. Unilateral rows with Coulomb friction (the rod's and the
// body's coefficients combined as two rigid bodies' are); not warm-started.

#include "server/world/coupling/rod_soft_coupling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <optional>

#include "server/collision/rod_contacts.h"
#include "server/constraint/contact_rows.h"
#include "server/world/soft/soft_surface_query.h"

namespace ligature {

void RodSoftCoupling::FindContacts(const WorldView& w, StepContext& ctx) {
  contacts_.clear();
  std::vector<RodSoftCandidate>& out = ctx.rod_soft_candidates;
  out.clear();
  if (w.rods.empty() || w.settings.solver.kind != SolverKind::kGaussSeidel) return;
  const auto& soft_bodies = w.soft.bodies();
  if (soft_bodies.empty()) return;
  const double h = w.settings.dt();
  const double margin = w.settings.contact_margin;
  const RodWorld& rods = w.rods;
  // Each dynamic rod's reach over the step: its control hull grown by its radius and motion.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<Aabb> rod_bounds(rods.rods().size(),
                               Aabb{Vec3::Constant(kInf), Vec3::Constant(-kInf)});
  double widest = 0.0;
  for (size_t r = 0; r < rods.rods().size(); ++r) {
    const RodWorld::Rod& rod = rods.rods()[r];
    if (rod.desc.kinematic) continue;
    double fastest = 0.0;
    for (size_t i = 0; i < rod.state.x.size(); ++i) {
      rod_bounds[r].min = rod_bounds[r].min.cwiseMin(rod.state.x[i]);
      rod_bounds[r].max = rod_bounds[r].max.cwiseMax(rod.state.x[i]);
      fastest = std::max(fastest, rod.state.v[i].norm());
    }
    const double grow = rod.model.material().radius + h * fastest;
    widest = std::max(widest, grow);
    rod_bounds[r].min.array() -= grow;
    rod_bounds[r].max.array() += grow;
  }
  TriangleGrid grid;
  for (size_t s = 0; s < soft_bodies.size(); ++s) {
    const SoftWorld::Body& body = soft_bodies[s];
    if (!body.stepped || body.surface.triangles.empty()) continue;
    const SweptBoundary swept = Sweep(body, margin);
    bool built = false;
    for (size_t r = 0; r < rods.rods().size(); ++r) {
      const RodWorld::Rod& rod = rods.rods()[r];
      if (rod.desc.kinematic || !rod.desc.collision.Meets(body.desc.collision) ||
          !rod_bounds[r].Overlaps(swept.bounds)) {
        continue;
      }
      if (!built) {
        grid.Build(body.surface.triangles, body.start, margin + swept.reach + widest);
        built = true;
      }
      const double radius = rod.model.material().radius;
      const double friction = std::sqrt(rod.desc.friction * body.desc.friction);
      const int samples = RodContactSampleCount(rod.model);
      for (int k = 0; k < samples; ++k) {
        const double u = rod.model.length() * k / (samples - 1);
        const SplineSample at = rod.model.spline().Sample(u);
        const Vec3 x = rod.state.Position(at);
        Vec3 v = Vec3::Zero();
        for (int a = 0; a < 4; ++a) v += at.b[a] * rod.state.v[at.first + a];
        const double reach = radius + margin + h * v.norm() + swept.reach;
        const Aabb near{swept.bounds.min.array() - (radius + h * v.norm()),
                        swept.bounds.max.array() + (radius + h * v.norm())};
        if (!Contains(near, x)) continue;
        const std::optional<SurfaceHit> hit = NearestSurfacePoint(body, grid, x, reach);
        if (!hit) continue;
        ContactPoint c;
        c.normal = -hit->normal;  // from the rod towards the surface
        c.distance = (x - hit->point).dot(hit->normal) - radius;
        c.position = 0.5 * (x - radius * hit->normal + hit->point);
        out.push_back(
            {static_cast<int>(r), k, u, static_cast<int>(s), HitPoint(body, *hit), c, friction});
      }
    }
  }
}

void RodSoftCoupling::PlaceContacts(const WorldView& w, StepContext& ctx) {
  if (!ctx.rod_points_placed) return;
  const std::vector<RodSoftCandidate>& candidates = ctx.rod_soft_candidates;
  assert(ctx.rod_point_of_candidate.size() == candidates.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    const RodSoftCandidate& c = candidates[k];
    contacts_.push_back({ctx.rod_point_of_candidate[k], c.rod, c.soft,
                         static_cast<uint32_t>(ctx.soft_points.size()), c.contact, c.friction});
    ctx.soft_points.push_back({c.soft, c.at});
  }
  w.stats.contacts += static_cast<int>(contacts_.size());
}

// One contact block per contact, after the rod-rigid ones.
void RodSoftCoupling::BuildRows(const WorldView& w, StepContext& ctx) {
  first_block_ = ctx.rows.blocks.size();
  const double h = w.settings.dt();
  const uint32_t n = static_cast<uint32_t>(w.bodies.size());
  for (const Contact& c : contacts_) {
    const ContactBody a = PointBody(ctx.rod_first_point + c.point, c.contact.position,
                                    ctx.rod_points[c.point].velocity);
    const ContactBody b = PointBody(
        n + c.soft_point, c.contact.position,
        w.soft.PointMotion(c.soft, ctx.soft_points[c.soft_point].at) / h);
    ctx.rows.blocks.push_back(MakeContactBlock(c.contact, a, b, c.friction, h));
  }
}

// The soft point's force and the rod point's join their sums (after the other couplings'
// on the same points).
void RodSoftCoupling::ApplySolvedForces(const WorldView&, StepContext& ctx) {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const ConstraintBlock& b = ctx.rows.blocks[first_block_ + k];
    const Contact& c = contacts_[k];
    assert(c.soft_point < ctx.soft_point_forces.size() && c.point < ctx.rod_point_forces.size());
    ctx.soft_point_forces[c.soft_point] += b.jacobian_b.leftCols<3>().transpose() * b.force;
    ctx.rod_point_forces[c.point] += b.jacobian_a.leftCols<3>().transpose() * b.force;
  }
}

void RodSoftCoupling::ForEachContact(
    absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    fn(first_block_ + k, {false, true, static_cast<uint32_t>(c.rod),
                          static_cast<uint32_t>(c.soft), true, -1, c.contact});
  }
}

void RodSoftCoupling::RenumberSoftPoints(std::span<const uint32_t> new_index) {
  for (Contact& c : contacts_) c.soft_point = new_index[c.soft_point];
}

}  // namespace ligature
