#pragma once
// Rigid bodies as flat arrays (structure of arrays), dense and swap-removed, addressed from
// outside through handles (slot + generation) so that a stale handle is detected.

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
  BodyHandle Add(const BodyDesc& desc);
  void Remove(BodyHandle handle);
  bool IsValid(BodyHandle handle) const;
  // Dense index of a valid handle.
  uint32_t Index(BodyHandle handle) const { return slots_[handle.slot].dense; }
  BodyHandle HandleAt(uint32_t index) const {
    return {slot_of_[index], slots_[slot_of_[index]].generation};
  }
  int size() const { return static_cast<int>(id.size()); }

  // Replaces the material or kind of body `index` and recomputes its mass properties.
  void SetMaterial(uint32_t index, const Material& material);
  void SetKind(uint32_t index, BodyKind kind);
  bool IsDynamic(uint32_t index) const { return kind[index] == BodyKind::kDynamic; }
  BodyDesc Describe(uint32_t index) const;

  // Model: changes only through edits.
  std::vector<std::string> id;
  std::vector<BodyKind> kind;
  std::vector<Shape> shape;
  std::vector<Material> material;
  std::vector<double> inv_mass;             // 1/kg, 0 for kinematic and static bodies
  std::vector<Vec3> inv_inertia_local;      // 1/(kg m^2), principal axes

  // State: changes every tick.
  std::vector<Vec3> position;
  std::vector<Quat> orientation;
  std::vector<Vec3> linear_velocity;
  std::vector<Vec3> angular_velocity;

 private:
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
