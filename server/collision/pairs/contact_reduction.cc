#include "server/collision/pairs/contact_reduction.h"

#include <algorithm>
#include <cstddef>

namespace ligature {
namespace {

// Depths within this of the deepest count as equally deep (m).
constexpr double kDepthTie = 1e-9;
// Points within this of the line through the first two are on it (m).
constexpr double kOffLine = 1e-9;

}  // namespace

void ReduceContacts(std::span<const ContactPoint> candidates, const Vec3& normal,
                    ContactManifold* out) {
  const std::size_t n = candidates.size();
  if (n <= static_cast<std::size_t>(ContactManifold::kMaxPoints)) {
    for (const ContactPoint& p : candidates) out->Add(p);
    return;
  }

  // First: a deepest point. Of points as deep within kDepthTie (a face resting flat, where
  // rounding alone would pick), the one farthest from the candidates' mean: a corner, not a
  // point where a seam or an edge crosses the face.
  double deepest = candidates[0].distance;
  Vec3 mean = Vec3::Zero();
  for (const ContactPoint& p : candidates) {
    deepest = std::min(deepest, p.distance);
    mean += p.position;
  }
  mean /= static_cast<double>(n);
  std::size_t first = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (candidates[i].distance > deepest + kDepthTie) continue;
    if (first == n || (candidates[i].position - mean).squaredNorm() >
                          (candidates[first].position - mean).squaredNorm()) {
      first = i;
    }
  }
  const Vec3& p0 = candidates[first].position;

  // Second: the point farthest from the first.
  std::size_t second = first;
  double best_d2 = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d2 = (candidates[i].position - p0).squaredNorm();
    if (d2 > best_d2) {
      best_d2 = d2;
      second = i;
    }
  }
  out->Add(candidates[first]);
  if (second == first) return;  // all points coincide
  out->Add(candidates[second]);

  // Third and fourth: largest signed triangle area on each side of the first two; points
  // within kOffLine of their line (collinear but for rounding) add nothing.
  const Vec3 edge = candidates[second].position - p0;
  std::size_t third = first;
  std::size_t fourth = first;
  double max_area = kOffLine * edge.norm();
  double min_area = -max_area;
  for (std::size_t i = 0; i < n; ++i) {
    const double area = edge.cross(candidates[i].position - p0).dot(normal);
    if (area > max_area) {
      max_area = area;
      third = i;
    }
    if (area < min_area) {
      min_area = area;
      fourth = i;
    }
  }
  if (third != first) out->Add(candidates[third]);
  if (fourth != first) out->Add(candidates[fourth]);
}

}  // namespace ligature
