// Rods against soft bodies through the world's Gauss-Seidel solve.
//
// Before the rods' step, each dynamic rod's contact samples (at the start of the tick) are
// tested against the surface of every FEM body that stepped, within the rod's radius, the
// contact margin and how far the sample and the surface move over the step (speculative,
// as the other contacts). A contact joins the rod point, a solver point of the rods'
// coupled groups (its compliance from their factorized system), to the nearest point of
// the body's surface, a solver point of the soft body's group (it moves as its triangle's
// vertices do). Both sides thus take the contact through their own implicit systems: a
// cable lying on tissue dents it and the tissue carries the cable's weight, in the same
// solve as every rigid contact. Unilateral rows with Coulomb friction (the rod's and the
// body's coefficients combined as two rigid bodies' are); not warm-started.

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/collision/rod_contacts.h"
#include "server/constraint/contact_rows.h"
#include "server/world/soft/soft_surface_query.h"
#include "server/world/world.h"

namespace ligature {

std::vector<World::RodSoftCandidate> World::FindRodSoftContacts() const {
  std::vector<RodSoftCandidate> out;
  const auto& soft_bodies = soft_.bodies();
  if (soft_bodies.empty()) return out;
  const double h = settings_.dt();
  const double margin = settings_.contact_margin;
  // Each dynamic rod's reach over the step: its control hull grown by its radius and motion.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<Aabb> rod_bounds(rods_.rods().size(),
                               Aabb{Vec3::Constant(kInf), Vec3::Constant(-kInf)});
  double widest = 0.0;
  for (size_t r = 0; r < rods_.rods().size(); ++r) {
    const RodWorld::Rod& rod = rods_.rods()[r];
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
    for (size_t r = 0; r < rods_.rods().size(); ++r) {
      const RodWorld::Rod& rod = rods_.rods()[r];
      if (rod.desc.kinematic || !rod_bounds[r].Overlaps(swept.bounds)) continue;
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
  return out;
}

void World::AddRodSoftContacts(const std::vector<RodSoftCandidate>& candidates,
                               std::span<const uint32_t> point_of_candidate) {
  for (size_t k = 0; k < candidates.size(); ++k) {
    const RodSoftCandidate& c = candidates[k];
    rod_soft_contacts_.push_back({point_of_candidate[k], c.rod, c.soft,
                                  static_cast<uint32_t>(soft_points_.size()), c.contact,
                                  c.friction});
    soft_points_.push_back({c.soft, c.at});
  }
  GroupSoftPoints();
  stats_.contacts += static_cast<int>(rod_soft_contacts_.size());
}

// One contact block per rod-soft contact, after the rod-rigid ones.
void World::BuildRodSoftRows() {
  rod_soft_first_block_ = rows_.blocks.size();
  const double h = settings_.dt();
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  for (const RodSoftContact& c : rod_soft_contacts_) {
    const ContactBody a = PointBody(rod_first_point_ + c.point, c.contact.position,
                                    rod_points_[c.point].velocity);
    const ContactBody b = PointBody(n + c.soft_point, c.contact.position,
                                    soft_.PointMotion(c.soft, soft_points_[c.soft_point].at) / h);
    rows_.blocks.push_back(MakeContactBlock(c.contact, a, b, c.friction, h));
  }
}

}  // namespace ligature
