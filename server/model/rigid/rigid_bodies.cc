#include "server/model/rigid/rigid_bodies.h"

#include <cassert>

#include "server/model/rigid/mass_properties.h"

namespace ligature {

BodyHandle RigidBodies::Add(const BodyDesc& desc) {
  // Reuse the most recently freed slot (deterministic), else grow.
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const uint32_t dense = static_cast<uint32_t>(id.size());
  slots_[slot].dense = dense;
  slot_of_.push_back(slot);

  id.push_back(desc.id);
  kind.push_back(desc.kind);
  shape.push_back(desc.shape);
  material.push_back(desc.material);
  inv_mass.push_back(0.0);
  inv_inertia_local.push_back(Vec3::Zero());
  position.push_back(desc.pose.position);
  orientation.push_back(desc.pose.orientation.normalized());
  const bool moves = desc.kind != BodyKind::kStatic;
  linear_velocity.push_back(moves ? desc.linear_velocity : Vec3::Zero());
  angular_velocity.push_back(moves ? desc.angular_velocity : Vec3::Zero());
  UpdateMass(dense);
  return {slot, slots_[slot].generation};
}

void RigidBodies::Remove(BodyHandle handle) {
  assert(IsValid(handle));
  const uint32_t dense = slots_[handle.slot].dense;
  const uint32_t last = static_cast<uint32_t>(id.size()) - 1;
  // Swap the last body into the hole so the arrays stay dense.
  auto move_last = [&](auto& v) {
    v[dense] = std::move(v[last]);
    v.pop_back();
  };
  move_last(id);
  move_last(kind);
  move_last(shape);
  move_last(material);
  move_last(inv_mass);
  move_last(inv_inertia_local);
  move_last(position);
  move_last(orientation);
  move_last(linear_velocity);
  move_last(angular_velocity);
  if (dense != last) {
    slot_of_[dense] = slot_of_[last];
    slots_[slot_of_[dense]].dense = dense;
  }
  slot_of_.pop_back();
  slots_[handle.slot].dense = UINT32_MAX;
  ++slots_[handle.slot].generation;
  free_slots_.push_back(handle.slot);
}

bool RigidBodies::IsValid(BodyHandle handle) const {
  return handle.slot < slots_.size() && slots_[handle.slot].dense != UINT32_MAX &&
         slots_[handle.slot].generation == handle.generation;
}

void RigidBodies::SetMaterial(uint32_t index, const Material& m) {
  material[index] = m;
  UpdateMass(index);
}

void RigidBodies::SetKind(uint32_t index, BodyKind k) {
  kind[index] = k;
  if (k == BodyKind::kStatic) {
    linear_velocity[index].setZero();
    angular_velocity[index].setZero();
  }
  UpdateMass(index);
}

BodyDesc RigidBodies::Describe(uint32_t i) const {
  BodyDesc d;
  d.id = id[i];
  d.kind = kind[i];
  d.shape = shape[i];
  d.material = material[i];
  d.pose = {position[i], orientation[i]};
  d.linear_velocity = linear_velocity[i];
  d.angular_velocity = angular_velocity[i];
  return d;
}

// Only dynamic bodies have finite mass; the others do not respond to forces or constraints.
void RigidBodies::UpdateMass(uint32_t i) {
  if (kind[i] != BodyKind::kDynamic || shape[i].type == ShapeType::kPlane) {
    inv_mass[i] = 0.0;
    inv_inertia_local[i].setZero();
    return;
  }
  const MassProperties mp = ComputeMassProperties(shape[i], material[i]);
  inv_mass[i] = 1.0 / mp.mass;
  inv_inertia_local[i] = mp.inertia.cwiseInverse();
}

}  // namespace ligature
