#include "server/model/rigid/rigid_bodies.h"

#include <cassert>

#include "server/math/unit_quat.h"
#include "server/model/rigid/mass_properties.h"

namespace ligature {
namespace {

// A plane or a mesh: a surface with no volume, so no mass, its frame its own origin.
bool IsSurface(const std::vector<ChildShape>& shapes) {
  return shapes.size() == 1 && (shapes[0].shape.type == ShapeType::kPlane ||
                                shapes[0].shape.type == ShapeType::kMesh);
}

}  // namespace

BodyHandle RigidBodies::Add(const BodyDesc& desc) {
  // Only rigid bodies live here (the world keeps the other kinds).
  assert(desc.is_rigid());
  const RigidBodyDesc& rigid = *desc.rigid();

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

  // Shapes in the body frame, then re-centred on the centre of mass (density does not
  // move it: one material per body).
  std::vector<ChildShape> children = rigid.children;
  if (children.empty()) children.push_back({rigid.shape, Transform{}});
  const Vec3 center =
      IsSurface(children) ? Vec3::Zero() : ComputeCompoundMass(children, rigid.material).center;
  for (ChildShape& c : children) c.local.position -= center;

  id.push_back(desc.id);
  kind.push_back(desc.kind);
  shapes.push_back(std::move(children));
  compound.push_back(rigid.children.empty() ? 0 : 1);
  collision.push_back(rigid.collision);
  center_local.push_back(center);
  material.push_back(rigid.material);
  inv_mass.push_back(0.0);
  inv_inertia_local.push_back(Mat3::Zero());
  position.push_back(Vec3::Zero());
  orientation.push_back(Quat::Identity());
  const bool moves = desc.kind != BodyKind::kStatic;
  linear_velocity.push_back(moves ? rigid.linear_velocity : Vec3::Zero());
  angular_velocity.push_back(moves ? rigid.angular_velocity : Vec3::Zero());
  rest_time.push_back(0.0);
  sleep_island.push_back(0);
  SetBodyPose(dense, rigid.pose);
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
  move_last(shapes);
  move_last(compound);
  move_last(collision);
  move_last(center_local);
  move_last(material);
  move_last(inv_mass);
  move_last(inv_inertia_local);
  move_last(position);
  move_last(orientation);
  move_last(linear_velocity);
  move_last(angular_velocity);
  move_last(rest_time);
  move_last(sleep_island);
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
  // The shapes were placed around the given centre when the body was added: it stays.
  std::optional<GivenInertia> inertia = std::move(material[index].inertia);
  material[index] = m;
  material[index].inertia = std::move(inertia);
  UpdateMass(index);
}

void RigidBodies::SetKind(uint32_t index, BodyKind k) {
  kind[index] = k;
  rest_time[index] = 0.0;
  sleep_island[index] = 0;
  if (k == BodyKind::kStatic) {
    linear_velocity[index].setZero();
    angular_velocity[index].setZero();
  }
  UpdateMass(index);
}

Transform RigidBodies::BodyPose(uint32_t i) const {
  return {position[i] - orientation[i] * center_local[i], orientation[i]};
}

void RigidBodies::SetBodyPose(uint32_t i, const Transform& body_pose) {
  orientation[i] = UnitQuat(body_pose.orientation);
  position[i] = body_pose.position + orientation[i] * center_local[i];
}

BodyDesc RigidBodies::Describe(uint32_t i) const {
  BodyDesc d;
  d.id = id[i];
  d.kind = kind[i];
  RigidBodyDesc& rigid = d.body.emplace<RigidBodyDesc>();
  if (compound[i]) {
    rigid.children = shapes[i];
    for (ChildShape& c : rigid.children) c.local.position += center_local[i];
  } else {
    rigid.shape = shapes[i].front().shape;
  }
  rigid.material = material[i];
  rigid.collision = collision[i];
  rigid.pose = BodyPose(i);
  rigid.linear_velocity = linear_velocity[i];
  rigid.angular_velocity = angular_velocity[i];
  return d;
}

// Only dynamic bodies have finite mass; the others (and surfaces, whatever their kind) do
// not respond to forces or constraints.
void RigidBodies::UpdateMass(uint32_t i) {
  if (kind[i] != BodyKind::kDynamic || IsSurface(shapes[i])) {
    inv_mass[i] = 0.0;
    inv_inertia_local[i].setZero();
    return;
  }
  const CompoundMass mp = ComputeCompoundMass(shapes[i], material[i]);
  inv_mass[i] = 1.0 / mp.mass;
  inv_inertia_local[i] = mp.inertia.inverse();
}

}  // namespace ligature
