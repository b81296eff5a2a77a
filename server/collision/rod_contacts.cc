#include "server/collision/rod_contacts.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "server/collision/contact.h"
#include "server/collision/narrowphase.h"

namespace ligature {
namespace {

bool Overlap(const Aabb& a, const Vec3& lo, const Vec3& hi) {
  return (a.min.array() <= hi.array()).all() && (lo.array() <= a.max.array()).all();
}

}  // namespace

// Samples about a radius apart (a cable wrapped tightly over a sharp edge then dips between
// two of them by about a tenth of its radius), but no closer than a sixteenth of a segment
// (thin threads) and no further than half a segment.
int RodContactSampleCount(const RodModel& model) {
  const double segment = model.spline().segment_length();
  const double spacing =
      std::min(0.5 * segment, std::max(model.material().radius, segment / 16.0));
  return static_cast<int>(std::ceil(model.length() / spacing)) + 1;
}

void FindRodContacts(int rod_index, const RodModel& model, const RodState& state,
                     const CollisionFilter& filter, double h, double margin,
                     std::span<const Obstacle> obstacles,
                     std::vector<RodContact>* out) {
  if (obstacles.empty()) return;
  const double radius = model.material().radius;
  // The curve lies in its control polygon's convex hull: its box bounds every sample.
  Vec3 lo = state.x[0], hi = state.x[0];
  double fastest = 0.0;
  for (size_t i = 0; i < state.x.size(); ++i) {
    lo = lo.cwiseMin(state.x[i]);
    hi = hi.cwiseMax(state.x[i]);
    fastest = std::max(fastest, state.v[i].norm());
  }
  const double reach = radius + margin + h * fastest;
  lo.array() -= reach;
  hi.array() += reach;
  std::vector<const Obstacle*> near;
  for (const Obstacle& o : obstacles) {
    if (filter.Meets(o.filter) && Overlap(o.bounds, lo, hi)) near.push_back(&o);
  }
  if (near.empty()) return;

  const int samples = RodContactSampleCount(model);
  const Shape sphere = Shape::Sphere(radius);
  ContactManifold manifold;
  for (int k = 0; k < samples; ++k) {
    const double u = model.length() * k / (samples - 1);
    const SplineSample s = model.spline().Sample(u);
    const Vec3 x = state.Position(s);
    Vec3 v = Vec3::Zero();
    for (int a = 0; a < 4; ++a) v += s.b[a] * state.v[s.first + a];
    const double sample_margin = margin + h * v.norm();
    for (const Obstacle* o : near) {
      const double pair_margin = sample_margin + o->reach;
      const Vec3 r = Vec3::Constant(radius + pair_margin);
      if (!Overlap(o->bounds, x - r, x + r)) continue;
      manifold.count = 0;
      Collide(sphere, Transform{x, Quat::Identity()}, o->shape, o->pose, pair_margin,
              &manifold);
      for (int m = 0; m < manifold.count; ++m) {
        const ContactPoint& p = manifold.points[m];
        RodContact c;
        c.rod = rod_index;
        c.u = u;
        c.sample = k;
        c.body = o->body;
        c.normal = p.normal;
        c.point = p.position;
        c.anchor = x;
        c.distance = p.distance;
        c.active = p.distance < 0.0;
        if (o->inv_mass > 0.0) {
          const Vec3 rn = (p.position - o->center).cross(p.normal);
          c.mass = 1.0 / (o->inv_mass + rn.dot(o->inv_inertia * rn));
        }
        out->push_back(c);
      }
    }
  }
}

void ShareObstacleMass(std::vector<RodContact>* contacts) {
  absl::flat_hash_map<uint32_t, int> count;
  for (const RodContact& c : *contacts) {
    if (c.mass > 0.0) ++count[c.body];
  }
  for (RodContact& c : *contacts) {
    if (c.mass > 0.0) c.mass /= count[c.body];
  }
}

}  // namespace ligature
