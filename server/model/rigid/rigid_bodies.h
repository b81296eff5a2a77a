#pragma once
// Rigid bodies as flat arrays (structure of arrays), dense and swap-removed, addressed from
// outside through handles (slot + generation) so that a stale handle is detected.
//
// Internally a body's state is the pose of its centre of mass (with the body's own axes),
// and its shapes are placed relative to that. Clients see the body frame they gave; the
// conversion is BodyPose()/SetBodyPose(). For a single shape the two frames coincide.

#include <cstdint>
#include <string>
#include <vector>

#include "server/model/rigid/body_desc.h"

namespace ligature {

struct BodyHandle {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
  bool IsNull() const { return slot == UINT32_MAX; }
  bool operator==(const BodyHandle&) const = default;
};

class RigidBodies {
 public:
  // Adds a rigid body (desc.is_rigid()).
  BodyHandle Add(const BodyDesc& desc);
  void Remove(BodyHandle handle);
  bool IsValid(BodyHandle handle) const;
  // Dense index of a valid handle.
  uint32_t Index(BodyHandle handle) const { return slots_[handle.slot].dense; }
  BodyHandle HandleAt(uint32_t index) const {
    return {slot_of_[index], slots_[slot_of_[index]].generation};
  }
  int size() const { return static_cast<int>(id.size()); }

  // Replaces the material (keeping a given inertia) or kind of body `index` and recomputes
  // its mass properties.
  void SetMaterial(uint32_t index, const Material& material);
  void SetKind(uint32_t index, BodyKind kind);
  bool IsDynamic(uint32_t index) const { return kind[index] == BodyKind::kDynamic; }
  // Sleeping: a dynamic body at rest that the step leaves where it is, with no velocity,
  // until something wakes its island.
  bool IsAsleep(uint32_t index) const { return sleep_island[index] != 0; }
  // Whether the step moves body `index` by its dynamics: dynamic and awake.
  bool Moves(uint32_t index) const { return IsDynamic(index) && !IsAsleep(index); }
  // The rigid body as clients would describe it (without its tool role).
  BodyDesc Describe(uint32_t index) const;

  // The collision filter of body `index`'s child `k`: its own, or the body's.
  const CollisionFilter& ChildFilter(uint32_t index, size_t k) const {
    const std::optional<CollisionFilter>& own = shapes[index][k].filter;
    return own ? *own : collision[index];
  }

  // The body frame's pose (as clients see it) <-> the centre-of-mass pose held here.
  Transform BodyPose(uint32_t index) const;
  void SetBodyPose(uint32_t index, const Transform& body_pose);
  // A point given in the body frame, expressed in the centre-of-mass frame.
  Vec3 ToCenterFrame(uint32_t index, const Vec3& body_point) const {
    return body_point - center_local[index];
  }
  Vec3 FromCenterFrame(uint32_t index, const Vec3& center_point) const {
    return center_point + center_local[index];
  }

  // Model: changes only through edits.
  std::vector<std::string> id;
  std::vector<BodyKind> kind;
  std::vector<std::vector<ChildShape>> shapes;  // placed in the centre-of-mass frame
  std::vector<uint8_t> compound;                // given as children (vs a single shape)
  std::vector<CollisionFilter> collision;       // the body's filter (a child may have its own)
  std::vector<Vec3> center_local;               // centre of mass in the body frame (m)
  std::vector<Material> material;
  std::vector<double> inv_mass;                 // 1/kg, 0 for kinematic and static bodies
  std::vector<Mat3> inv_inertia_local;          // 1/(kg m^2), body axes, about the centre

  // State: changes every tick. Position is the centre of mass's.
  std::vector<Vec3> position;
  std::vector<Quat> orientation;
  std::vector<Vec3> linear_velocity;   // of the centre of mass
  std::vector<Vec3> angular_velocity;
  // Sleeping: how long (s) the body has been at rest while awake, and the island it fell
  // asleep with (0 while awake): the bodies of one island wake together.
  std::vector<double> rest_time;
  std::vector<uint32_t> sleep_island;

 private:
  // Places the shapes around the centre of mass and sets the inverse mass and inertia.
  void UpdateMass(uint32_t index);

  struct Slot {
    uint32_t generation = 0;
    uint32_t dense = UINT32_MAX;  // UINT32_MAX when free
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> slot_of_;  // dense index -> slot
};

}  // namespace ligature
