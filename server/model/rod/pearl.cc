#include "server/model/rod/pearl.h"

#include <algorithm>
#include <cmath>

namespace ligature {

Vec3 StepPearlSpeed(const RodModel& model, const RodState& state, double h, const Vec3& force,
                    Pearl* pearl) {
  const SplineSample s = model.spline().Sample(pearl->u);
  const Vec3 xp = state.Tangent(s);
  const double l = xp.norm();
  if (!(l > 1e-12)) return force;
  const Vec3 t = xp / l;
  const double m = pearl->desc.mass;
  const double along = force.dot(t);
  const double normal = (force - along * t).norm();
  // Particle step projected on the tangent, viscous friction implicit.
  const double v0 = pearl->speed;
  double v = (m * v0 + h * along) / (m + h * pearl->desc.viscous);
  // Coulomb: the friction impulse mu N h stops the pearl when it can, else slows it.
  const double friction_impulse = pearl->desc.friction * normal * h;
  if (std::abs(m * v) <= friction_impulse) {
    v = 0.0;
  } else {
    v -= std::copysign(friction_impulse / m, v);
  }
  pearl->speed = v;
  return force - m * (v - v0) / h * t;
}

void MovePearls(const RodModel& model, const RodState& state, double h,
                std::vector<Pearl*>& pearls) {
  const double length = model.length();
  // In order along the rod before moving: pearls that meet within the step (even ones
  // that would pass through each other) are then neighbours that overlap.
  std::sort(pearls.begin(), pearls.end(), [](const Pearl* a, const Pearl* b) {
    return a->u < b->u;
  });
  // Along the rod, u advances by the arc travelled divided by the local stretch |x'|.
  for (Pearl* p : pearls) {
    const double l = std::max(state.Tangent(model.spline().Sample(p->u)).norm(), 1e-12);
    p->u += h * p->speed / l;
  }
  // Neighbours that overlap: an elastic exchange when they approach, then separation
  // (mass-weighted) so that they just touch. Sweeps repeat until no pair overlaps (a row of
  // n touching pearls settles within n sweeps).
  const int sweeps = static_cast<int>(pearls.size()) + 1;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool touched = false;
    for (size_t k = 1; k < pearls.size(); ++k) {
      Pearl& a = *pearls[k - 1];
      Pearl& b = *pearls[k];
      const double gap = b.u - a.u - (a.desc.radius + b.desc.radius);
      if (gap >= -1e-15) continue;
      touched = true;
      const double ma = a.desc.mass, mb = b.desc.mass;
      if (a.speed > b.speed) {
        const double va = ((ma - mb) * a.speed + 2.0 * mb * b.speed) / (ma + mb);
        const double vb = ((mb - ma) * b.speed + 2.0 * ma * a.speed) / (ma + mb);
        a.speed = va;
        b.speed = vb;
      }
      a.u += gap * mb / (ma + mb);
      b.u -= gap * ma / (ma + mb);
    }
    if (!touched) break;
  }
  // The ends hold the pearls on the rod, and a pearl stopped by an end stops the ones
  // stacked against it: from the far end inwards, then from the near end.
  double limit = length;
  for (auto it = pearls.rbegin(); it != pearls.rend(); ++it) {
    Pearl& p = **it;
    if (p.u > limit - p.desc.radius) {
      p.u = limit - p.desc.radius;
      p.speed = std::min(p.speed, 0.0);
    }
    limit = p.u - p.desc.radius;
  }
  limit = 0.0;
  for (Pearl* p : pearls) {
    if (p->u < limit + p->desc.radius) {
      p->u = limit + p->desc.radius;
      p->speed = std::max(p->speed, 0.0);
    }
    limit = p->u + p->desc.radius;
  }
}

}  // namespace ligature
