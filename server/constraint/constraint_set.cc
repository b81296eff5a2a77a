#include "server/constraint/constraint_set.h"

namespace ligature {

void ConstraintSet::Add(PointConstraint c) {
  index_[c.id] = points_.size();
  points_.push_back(std::move(c));
}

void ConstraintSet::Remove(const std::string& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  const size_t i = it->second;
  index_.erase(it);
  // Swap-remove keeps the array dense; the moved constraint's index is updated.
  if (i + 1 != points_.size()) {
    points_[i] = std::move(points_.back());
    index_[points_[i].id] = i;
  }
  points_.pop_back();
}

const PointConstraint* ConstraintSet::Find(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &points_[it->second];
}

std::vector<std::string> ConstraintSet::RemoveAttachedTo(BodyHandle body) {
  std::vector<std::string> removed;
  for (const PointConstraint& c : points_) {
    if (c.body_a == body || c.body_b == body) removed.push_back(c.id);
  }
  for (const std::string& id : removed) Remove(id);
  return removed;
}

}  // namespace ligature
