#pragma once
// What the step's stages and the couplings see of a world for one call: its settings, its
// bodies of every kind, the ids of its rigid bodies and scalpels, and the tick's
// statistics. References only: a world is copied by value, so nothing keeps a view.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "server/constraint/contact_rows.h"
#include "server/geometry/obstacle.h"
#include "server/model/rigid/rigid_bodies.h"
#include "server/model/soft/scalpel_desc.h"
#include "server/world/frame.h"
#include "server/world/rod/rod_world.h"
#include "server/world/scene_desc.h"
#include "server/world/soft/soft_world.h"

namespace ligature {

struct WorldView {
  const WorldSettings& settings;
  RigidBodies& bodies;
  RodWorld& rods;
  SoftWorld& soft;
  const absl::flat_hash_map<std::string, BodyHandle>& body_ids;
  // Rigid bodies that cut, in id order.
  const std::map<std::string, ScalpelDesc>& scalpels;
  StepStats& stats;

  // The rigid bodies that rod or soft constraints follow (handles).
  absl::flat_hash_set<uint32_t> Handles() const;
  // Each solid (non-sensor) shape of rigid body i where it is now, reaching `reach` (m)
  // beyond its bounds.
  void AppendObstacles(uint32_t i, double reach, std::vector<Obstacle>* out) const;
  // Rigid body i as a contact's body (the world when it is not dynamic, or asleep), its
  // centre of mass at `origin`.
  ContactBody RigidContactBody(uint32_t i, const Vec3& origin) const;
};

}  // namespace ligature
