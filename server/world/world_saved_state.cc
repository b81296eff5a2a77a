// A world's changing state out and back in (snapshots), each part through its own
// Save and Restore.

#include <algorithm>

#include "server/world/world.h"

namespace ligature {
namespace {

// A hash map's entries as a sorted list.
template <class Map>
auto Sorted(const Map& map) {
  std::vector<std::pair<typename Map::key_type, typename Map::mapped_type>> out(map.begin(),
                                                                              map.end());
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

}  // namespace

WorldSavedState World::SaveState() const {
  WorldSavedState s;
  s.tick = tick_;
  s.sim_time = sim_time_;
  s.next_id = next_id_;
  s.rigid = {bodies_.position, bodies_.orientation, bodies_.linear_velocity,
             bodies_.angular_velocity};
  for (const Joint& j : constraints_.joints()) {
    s.joints.push_back({j.frame_a, j.frame_b, j.forces, j.curve_segment, j.curve_normal});
  }
  s.contact_cache = contact_cache_.Save(bodies_);
  s.soft_warm = Sorted(soft_warm_);
  s.rod_warm = Sorted(rod_warm_);
  s.soft_pair_warm = Sorted(soft_pair_warm_);
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
  std::vector<Joint>& joints = constraints_.joints();
  for (size_t k = 0; k < joints.size(); ++k) {
    joints[k].frame_a = s.joints[k].frame_a;
    joints[k].frame_b = s.joints[k].frame_b;
    joints[k].forces = s.joints[k].forces;
    joints[k].curve_segment = s.joints[k].curve_segment;
    joints[k].curve_normal = s.joints[k].curve_normal;
  }
  contact_cache_.Restore(bodies_, s.contact_cache);
  for (const auto& [key, force] : s.soft_warm) soft_warm_[key] = force;
  for (const auto& [key, force] : s.rod_warm) rod_warm_[key] = force;
  for (const auto& [key, force] : s.soft_pair_warm) soft_pair_warm_[key] = force;
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
