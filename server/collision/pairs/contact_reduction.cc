#include "server/collision/pairs/contact_reduction.h"

#include <cstddef>

namespace ligature {

void ReduceContacts(std::span<const ContactPoint> candidates, const Vec3& normal,
                    ContactManifold* out) {
  const std::size_t n = candidates.size();
  if (n <= static_cast<std::size_t>(ContactManifold::kMaxPoints)) {
    for (const ContactPoint& p : candidates) out->Add(p);
    return;
  }

  // First: the deepest point.
  std::size_t first = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (candidates[i].distance < candidates[first].distance) first = i;
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

  // Third and fourth: largest signed triangle area on each side of the first two.
  const Vec3 edge = candidates[second].position - p0;
  std::size_t third = first;
  std::size_t fourth = first;
  double max_area = 0.0;
  double min_area = 0.0;
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
