#pragma once
// The changing state of a world that its scene export leaves out, as plain values: what a
// snapshot carries besides the scene. Bodies are named by their dense (scene) index; the
// warm-start maps are listed sorted, so that equal worlds give equal lists. Each part of
// the world saves and restores its own piece (World::SaveState, RestoreSavedState).

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "server/constraint/contact_cache.h"
#include "server/constraint/joint.h"
#include "server/math/transform.h"
#include "server/world/rod/rod_world.h"
#include "server/world/soft/soft_world.h"
#include "server/world/strand/strand_world.h"

namespace ligature {

struct WorldSavedState {
  uint64_t tick = 0;
  double sim_time = 0.0;  // s
  uint64_t next_id = 1;   // the counter generated ids come from

  // Rigid bodies, per dense index: the exact centre-of-mass state.
  struct Rigid {
    std::vector<Vec3> position;  // m
    std::vector<Quat> orientation;
    std::vector<Vec3> linear_velocity;   // m/s
    std::vector<Vec3> angular_velocity;  // rad/s
    std::vector<double> rest_time;       // s
    std::vector<uint32_t> sleep_island;  // 0: awake
  };
  Rigid rigid;
  // Joints' runtime state, in the scene's order.
  struct Joint {
    Transform frame_a;
    Transform frame_b;
    JointForces forces = ZeroJointForces();  // N
    uint32_t curve_segment = 0;
    Vec3 curve_normal = Vec3::Zero();
  };
  std::vector<Joint> joints;
  std::vector<ContactCache::Saved> contact_cache;
  // Warm starts of the deformable contacts: (soft body, vertex, rigid body), (rod, sample,
  // rigid body) and (soft body, vertex, other soft body) -> force (N), each sorted.
  std::vector<std::pair<std::tuple<int, int, uint32_t>, Vec3>> soft_warm;
  std::vector<std::pair<std::tuple<int, int, uint32_t>, Vec3>> rod_warm;
  std::vector<std::pair<std::tuple<int, int, int>, Vec3>> soft_pair_warm;
  std::vector<uint32_t> device_driven;  // bodies a device moved last tick
  std::vector<std::pair<uint32_t, Transform>> device_targets;  // arrival order
  std::vector<std::string> removed_constraints;                // since the last step

  RodWorld::SavedState rods;
  SoftWorld::SavedState soft;
  std::vector<StrandWorld::SavedStrand> strands;
};

}  // namespace ligature
