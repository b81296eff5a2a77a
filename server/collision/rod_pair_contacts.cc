#include "server/collision/rod_pair_contacts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ligature {
namespace {

constexpr int kChordsPerSegment = 4;

// Closest points of segments p0-p1 and q0-q1: their parameters s, t in [0, 1].
void ClosestOnSegments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                       double* s, double* t) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  constexpr double kTiny = 1e-300;
  if (a <= kTiny && e <= kTiny) {
    *s = *t = 0.0;
    return;
  }
  if (a <= kTiny) {
    *s = 0.0;
    *t = std::clamp(f / e, 0.0, 1.0);
    return;
  }
  const double c = d1.dot(r);
  if (e <= kTiny) {
    *t = 0.0;
    *s = std::clamp(-c / a, 0.0, 1.0);
    return;
  }
  const double b = d1.dot(d2), denom = a * e - b * b;
  // Parallel chords: any s; take 0 and clamp t, then s again.
  *s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  *t = (b * *s + f) / e;
  if (*t < 0.0) {
    *t = 0.0;
    *s = std::clamp(-c / a, 0.0, 1.0);
  } else if (*t > 1.0) {
    *t = 1.0;
    *s = std::clamp((b - c) / a, 0.0, 1.0);
  }
}

// One spline segment's box, grown by how far a contact may reach.
struct SegmentBox {
  int rod = 0;
  int segment = 0;
  Vec3 lo, hi;
};

// A rod's centreline as chords: kChordsPerSegment per segment, their end points.
std::vector<Vec3> Chords(const RodModel& model, const RodState& state) {
  const int segments = model.spline().segments();
  const double h = model.spline().segment_length();
  std::vector<Vec3> points(segments * kChordsPerSegment + 1);
  for (size_t k = 0; k < points.size(); ++k) {
    points[k] = state.Position(model.spline().Sample(h * k / kChordsPerSegment));
  }
  return points;
}

Vec3 VelocityAt(const RodState& state, const SplineSample& s) {
  Vec3 v = Vec3::Zero();
  for (int a = 0; a < 4; ++a) v += s.b[a] * state.v[s.first + a];
  return v;
}

bool Excluded(std::span<const RodContactExclusion> exclusions, const RodPairContact& c) {
  for (const RodContactExclusion& e : exclusions) {
    if (e.rod_a == c.rod_a && e.rod_b == c.rod_b && c.u_a >= e.lo_a && c.u_a <= e.hi_a &&
        c.u_b >= e.lo_b && c.u_b <= e.hi_b) {
      return true;
    }
    if (e.rod_a == c.rod_b && e.rod_b == c.rod_a && c.u_b >= e.lo_a && c.u_b <= e.hi_a &&
        c.u_a >= e.lo_b && c.u_a <= e.hi_b) {
      return true;
    }
  }
  return false;
}

}  // namespace

double SelfContactReach(const RodModel& model) {
  return std::max(2.0 * std::numbers::pi * model.material().radius,
                  2.0 * model.spline().segment_length());
}

void FindRodPairContacts(std::span<const RodShapeView> rods, double h, double margin,
                         std::span<const RodContactExclusion> exclusions,
                         std::vector<RodPairContact>* out) {
  // Segment boxes of the colliding rods: a segment lies in its four control points' hull.
  std::vector<SegmentBox> boxes;
  std::vector<std::vector<Vec3>> chords(rods.size());
  for (size_t r = 0; r < rods.size(); ++r) {
    if (!rods[r].collides) continue;
    const RodModel& model = *rods[r].model;
    const RodState& state = *rods[r].state;
    chords[r] = Chords(model, state);
    for (int s = 0; s < model.spline().segments(); ++s) {
      SegmentBox box{static_cast<int>(r), s, state.x[s], state.x[s]};
      double fastest = 0.0;
      for (int a = 0; a < 4; ++a) {
        box.lo = box.lo.cwiseMin(state.x[s + a]);
        box.hi = box.hi.cwiseMax(state.x[s + a]);
        fastest = std::max(fastest, state.v[s + a].norm());
      }
      const double grow = model.material().radius + 0.5 * margin + h * fastest;
      box.lo.array() -= grow;
      box.hi.array() += grow;
      boxes.push_back(box);
    }
  }
  if (boxes.size() < 2) return;

  // Sweep along x: pairs of boxes that overlap, then their chords' closest points.
  std::sort(boxes.begin(), boxes.end(),
            [](const SegmentBox& a, const SegmentBox& b) { return a.lo.x() < b.lo.x(); });
  std::vector<RodPairContact> found;
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size() && boxes[j].lo.x() <= boxes[i].hi.x(); ++j) {
      const SegmentBox* a = &boxes[i];
      const SegmentBox* b = &boxes[j];
      if ((a->lo.array() > b->hi.array()).any() || (b->lo.array() > a->hi.array()).any()) {
        continue;
      }
      if (a->rod > b->rod || (a->rod == b->rod && a->segment > b->segment)) std::swap(a, b);
      if (a->rod != b->rod && !rods[a->rod].filter.Meets(rods[b->rod].filter)) continue;
      const RodModel& ma = *rods[a->rod].model;
      const RodModel& mb = *rods[b->rod].model;
      const double seg_a = ma.spline().segment_length(), seg_b = mb.spline().segment_length();
      // Neighbouring stretches of one rod touch by construction.
      if (a->rod == b->rod && (b->segment - a->segment - 1) * seg_a < SelfContactReach(ma)) {
        continue;
      }
      double best = std::numeric_limits<double>::infinity();
      double best_ua = 0.0, best_ub = 0.0;
      for (int ka = 0; ka < kChordsPerSegment; ++ka) {
        const int ca = a->segment * kChordsPerSegment + ka;
        for (int kb = 0; kb < kChordsPerSegment; ++kb) {
          const int cb = b->segment * kChordsPerSegment + kb;
          double s = 0.0, t = 0.0;
          ClosestOnSegments(chords[a->rod][ca], chords[a->rod][ca + 1], chords[b->rod][cb],
                            chords[b->rod][cb + 1], &s, &t);
          const Vec3 pa = chords[a->rod][ca] + s * (chords[a->rod][ca + 1] - chords[a->rod][ca]);
          const Vec3 pb = chords[b->rod][cb] + t * (chords[b->rod][cb + 1] - chords[b->rod][cb]);
          const double d = (pb - pa).squaredNorm();
          if (d < best) {
            best = d;
            best_ua = (ca + s) * seg_a / kChordsPerSegment;
            best_ub = (cb + t) * seg_b / kChordsPerSegment;
          }
        }
      }
      RodPairContact c;
      c.rod_a = a->rod;
      c.rod_b = b->rod;
      c.u_a = std::clamp(best_ua, 0.0, ma.length());
      c.u_b = std::clamp(best_ub, 0.0, mb.length());
      if (c.rod_a == c.rod_b && std::abs(c.u_a - c.u_b) < SelfContactReach(ma)) continue;
      const SplineSample sa = ma.spline().Sample(c.u_a), sb = mb.spline().Sample(c.u_b);
      const RodState& xa = *rods[a->rod].state;
      const RodState& xb = *rods[b->rod].state;
      c.anchor_a = xa.Position(sa);
      c.anchor_b = xb.Position(sb);
      const Vec3 gap = c.anchor_b - c.anchor_a;
      const double centres = gap.norm();
      if (centres > 1e-12) {
        c.normal = gap / centres;
      } else {
        // Crossing centrelines: across both tangents.
        const Vec3 across = xa.Tangent(sa).cross(xb.Tangent(sb));
        if (across.norm() < 1e-12) continue;
        c.normal = across.normalized();
      }
      c.distance = centres - ma.material().radius - mb.material().radius;
      const double approach = h * (VelocityAt(xa, sa) - VelocityAt(xb, sb)).norm();
      if (c.distance > margin + approach) continue;
      if (Excluded(exclusions, c)) continue;
      c.active = c.distance < 0.0;
      found.push_back(c);
    }
  }

  // One contact per touching place: the nearest first, others within a segment of it on
  // both rods dropped.
  std::sort(found.begin(), found.end(), [](const RodPairContact& x, const RodPairContact& y) {
    return x.distance < y.distance;
  });
  const size_t first = out->size();
  for (const RodPairContact& c : found) {
    const double seg_a = rods[c.rod_a].model->spline().segment_length();
    const double seg_b = rods[c.rod_b].model->spline().segment_length();
    bool duplicate = false;
    for (size_t k = first; k < out->size() && !duplicate; ++k) {
      const RodPairContact& o = (*out)[k];
      duplicate = o.rod_a == c.rod_a && o.rod_b == c.rod_b &&
                  std::abs(o.u_a - c.u_a) < seg_a && std::abs(o.u_b - c.u_b) < seg_b;
    }
    if (!duplicate) out->push_back(c);
  }
}

}  // namespace ligature
