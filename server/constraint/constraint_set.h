#pragma once
// User constraints of a world, in creation order (swap-removed), looked up by id.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/model/rigid/rigid_bodies.h"

namespace ligature {

// A point of body A held to a point of body B, or to a world point (ball joint).
struct PointConstraint {
  std::string id;
  BodyHandle body_a;
  Vec3 anchor_a = Vec3::Zero();  // local to A
  BodyHandle body_b;             // null: the world
  Vec3 anchor_b = Vec3::Zero();  // local to B, or world point
  Vec3 force = Vec3::Zero();     // N, last solution (warm start)
};

class ConstraintSet {
 public:
  void Add(PointConstraint c);
  void Remove(const std::string& id);
  bool Contains(const std::string& id) const { return index_.contains(id); }
  const PointConstraint* Find(const std::string& id) const;
  // Removes every constraint on `body` and returns their ids.
  std::vector<std::string> RemoveAttachedTo(BodyHandle body);
  int size() const { return static_cast<int>(points_.size()); }

  std::vector<PointConstraint>& points() { return points_; }
  const std::vector<PointConstraint>& points() const { return points_; }

 private:
  std::vector<PointConstraint> points_;
  absl::flat_hash_map<std::string, size_t> index_;
};

}  // namespace ligature
