// A world's changing state out and back in (snapshots), each part through its own
// Save and Restore.

#include <algorithm>

#include "server/world/world.h"

namespace ligature {

WorldSavedState World::SaveState() const {
  WorldSavedState s;
  s.tick = tick_;
  s.sim_time = sim_time_;
  s.next_id = next_id_;
  s.rigid = {bodies_.position,         bodies_.orientation, bodies_.linear_velocity,
             bodies_.angular_velocity, bodies_.rest_time,   bodies_.sleep_island};
  for (const Joint& j : constraints_.joints()) {
    s.joints.push_back({j.frame_a, j.frame_b, j.forces, j.curve_segment, j.curve_normal});
  }
  s.contact_cache = contact_cache_.Save(bodies_);
  soft_rigid_.SaveWarmStart(&s);
  rod_rigid_.SaveWarmStart(&s);
  soft_soft_.SaveWarmStart(&s);
  for (const BodyHandle& h : device_driven_) {
    if (bodies_.IsValid(h)) s.device_driven.push_back(bodies_.Index(h));
  }
  for (const auto& [h, pose] : device_targets_) {
    if (bodies_.IsValid(h)) s.device_targets.emplace_back(bodies_.Index(h), pose);
  }
  s.removed_constraints = removed_constraints_;
  s.rods = rods_.Save();
  s.soft = soft_.Save();
  s.strands = strands_.Save();
  return s;
}

absl::Status World::RestoreSavedState(WorldSavedState s) {
  tick_ = s.tick;
  sim_time_ = s.sim_time;
  next_id_ = s.next_id;
  bodies_.position = std::move(s.rigid.position);
  bodies_.orientation = std::move(s.rigid.orientation);
  bodies_.linear_velocity = std::move(s.rigid.linear_velocity);
  bodies_.angular_velocity = std::move(s.rigid.angular_velocity);
  bodies_.rest_time = std::move(s.rigid.rest_time);
  bodies_.sleep_island = std::move(s.rigid.sleep_island);
  next_sleep_island_ = 1;
  for (uint32_t island : bodies_.sleep_island) {
    next_sleep_island_ = std::max(next_sleep_island_, island + 1);
  }
  std::vector<Joint>& joints = constraints_.joints();
  for (size_t k = 0; k < joints.size(); ++k) {
    joints[k].frame_a = s.joints[k].frame_a;
    joints[k].frame_b = s.joints[k].frame_b;
    joints[k].forces = s.joints[k].forces;
    joints[k].curve_segment = s.joints[k].curve_segment;
    joints[k].curve_normal = s.joints[k].curve_normal;
  }
  contact_cache_.Restore(bodies_, s.contact_cache);
  soft_rigid_.RestoreWarmStart(s);
  rod_rigid_.RestoreWarmStart(s);
  soft_soft_.RestoreWarmStart(s);
  for (uint32_t i : s.device_driven) device_driven_.push_back(bodies_.HandleAt(i));
  for (const auto& [i, pose] : s.device_targets) {
    device_targets_.emplace_back(bodies_.HandleAt(i), pose);
  }
  for (std::string& id : s.removed_constraints) removed_constraints_.push_back(std::move(id));
  soft_.Restore(std::move(s.soft));
  strands_.Restore(std::move(s.strands));
  // The rods' orderings are checked as they are taken: an error names their field.
  return rods_.Restore(std::move(s.rods));
}

}  // namespace ligature
