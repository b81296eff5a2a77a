#include "server/constraint/constraint_set.h"

namespace ligature {

void ConstraintSet::Add(Joint joint) {
  index_[joint.id] = joints_.size();
  joints_.push_back(std::move(joint));
}

void ConstraintSet::Remove(const std::string& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  const size_t i = it->second;
  index_.erase(it);
  // Swap-remove keeps the array dense; the moved constraint's index is updated.
  if (i + 1 != joints_.size()) {
    joints_[i] = std::move(joints_.back());
    index_[joints_[i].id] = i;
  }
  joints_.pop_back();
}

const Joint* ConstraintSet::Find(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &joints_[it->second];
}

Joint* ConstraintSet::FindMutable(const std::string& id) {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &joints_[it->second];
}

std::vector<std::string> ConstraintSet::RemoveAttachedTo(BodyHandle body) {
  std::vector<std::string> removed;
  for (const Joint& j : joints_) {
    if (j.body_a == body || j.body_b == body) removed.push_back(j.id);
  }
  for (const std::string& id : removed) Remove(id);
  return removed;
}

}  // namespace ligature
