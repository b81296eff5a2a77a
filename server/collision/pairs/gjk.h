#pragma once
// Distance between two convex sets given by their support functions (GJK): the closest pair
// of points when the sets are apart, or a flag when they overlap. Exact for polytopes (it
// ends on the closest pair of features) up to rounding.

#include <span>

#include "server/math/types.h"

namespace ligature {

// A convex set seen through its support function.
class ConvexSupport {
 public:
  virtual ~ConvexSupport() = default;
  // A point of the set farthest along `direction` (any point for a zero direction).
  virtual Vec3 Support(const Vec3& direction) const = 0;
};

// The convex hull of a set of points (at least one); ties go to the lowest index, so the
// answer is deterministic. The points are borrowed, not copied.
class PointSetSupport final : public ConvexSupport {
 public:
  explicit PointSetSupport(std::span<const Vec3> points) : points_(points) {}
  Vec3 Support(const Vec3& direction) const override;

 private:
  std::span<const Vec3> points_;
};

struct GjkResult {
  // The sets overlap, or touch closer than GJK can resolve (about 1e-10 of their size):
  // distance is 0 and the points are not meaningful.
  bool intersecting = false;
  double distance = 0.0;     // m, when apart
  Vec3 on_a = Vec3::Zero();  // closest point of A
  Vec3 on_b = Vec3::Zero();  // closest point of B
  int iterations = 0;
};

// Distance between `a` and `b` and a pair of closest points (one of them when not unique).
GjkResult GjkDistance(const ConvexSupport& a, const ConvexSupport& b);

}  // namespace ligature
