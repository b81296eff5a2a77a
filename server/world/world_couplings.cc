// The stages of a world's step where the couplings between body kinds take part
// (server/world/coupling/): the soft bodies' free motion, the couplings' contacts before
// the solve, their solved forces after it, and the solve's contact record.

#include <span>

#include "server/world/coupling/soft_points.h"
#include "server/world/world.h"

namespace ligature {

WorldView World::View() {
  return {settings_, bodies_, rods_, soft_, body_ids_, scalpels_, stats_};
}

// The soft bodies take their free motion with the rigid bodies': their contacts are found
// from there. Nails that follow a body aim at its free-motion pose, which for a kinematic or
// device-driven body is where the tick ends.
void World::IntegrateSoftFreeMotion() {
  if (soft_.empty()) return;
  soft_.StepFreeMotion(sim_time_, settings_.dt(), settings_.gravity,
                       [this](const std::string& id) -> std::optional<Transform> {
                         auto it = body_ids_.find(id);
                         if (it == body_ids_.end()) return std::nullopt;
                         const uint32_t i = bodies_.Index(it->second);
                         const Quat& q = step_.free_orientation[i];
                         return Transform{step_.free_position[i] - q * bodies_.center_local[i], q};
                       });
}

// Soft vertices against rigid shapes, then against other soft bodies (sharing the
// vertices' points), the points grouped body by body.
void World::DetectSoftContacts() {
  const WorldView w = View();
  step_.soft_points.clear();
  soft_rigid_.FindContacts(w, step_);
  soft_soft_.FindContacts(w, step_);
  if (soft_.empty()) return;
  const std::vector<uint32_t> new_index = GroupSoftPoints(&step_.soft_points);
  if (!new_index.empty()) {
    soft_rigid_.RenumberSoftPoints(new_index);
    soft_soft_.RenumberSoftPoints(new_index);
  }
  stats_.contacts +=
      static_cast<int>(soft_rigid_.contacts().size() + soft_soft_.contacts().size());
}

// Rod samples near soft bodies, then the rods' contacts with rigid shapes, which begin the
// rods' coupled step and place the rod points of both; the rod-soft contacts' soft points
// then join the soft bodies' groups.
void World::DetectRodContacts() {
  const WorldView w = View();
  rod_soft_.FindContacts(w, step_);
  rod_rigid_.FindContacts(w, step_);
  if (!step_.rod_points_placed) return;
  rod_soft_.PlaceContacts(w, step_);
  const std::vector<uint32_t> new_index = GroupSoftPoints(&step_.soft_points);
  if (new_index.empty()) return;
  soft_rigid_.RenumberSoftPoints(new_index);
  soft_soft_.RenumberSoftPoints(new_index);
  rod_soft_.RenumberSoftPoints(new_index);
}

// The couplings' solved forces: per soft point and per rod point they add up in the order
// the couplings' blocks were built; the soft bodies then take theirs (the rods take theirs
// in their own stage, StepRods).
void World::ApplyCouplingForces() {
  const WorldView w = View();
  step_.soft_point_forces.assign(step_.soft_points.size(), Vec3::Zero());
  step_.rod_point_forces.assign(step_.rod_points.size(), Vec3::Zero());
  soft_rigid_.ApplySolvedForces(w, step_);
  soft_soft_.ApplySolvedForces(w, step_);
  rod_rigid_.ApplySolvedForces(w, step_);
  rod_soft_.ApplySolvedForces(w, step_);
  ApplySoftPointForces(w, step_);
}

// The solve's contact forces as impulses over the step (the solvers' forces act for h):
// the rigid contacts, then each coupling's.
void World::RecordContacts() {
  step_.last_contacts.clear();
  const double h = settings_.dt();
  const auto record = [&](const ConstraintBlock& b, ContactRecord r) {
    r.normal_impulse = h * b.force.x();
    r.impulse = h * (b.jacobian_b.leftCols<3>().transpose() * b.force);
    step_.last_contacts.push_back(r);
  };
  const std::vector<RigidContact>& contacts = step_.contacts;
  for (size_t k = 0; k < contacts.size() && k < step_.rows.blocks.size(); ++k) {
    record(step_.rows.blocks[k],
           {false, false, contacts[k].a, contacts[k].b, false, -1, contacts[k].point});
  }
  const auto record_coupled = [&](size_t block, const ContactRecord& c) {
    record(step_.rows.blocks[block], c);
  };
  soft_rigid_.ForEachContact(record_coupled);
  soft_soft_.ForEachContact(record_coupled);
  rod_rigid_.ForEachContact(record_coupled);
  rod_soft_.ForEachContact(record_coupled);
  if (reporting_.enabled) RecordContactSpeeds();
}

std::vector<World::ContactReport> World::LastContacts() const {
  std::vector<ContactReport> out;
  out.reserve(step_.last_contacts.size());
  for (const ContactRecord& r : step_.last_contacts) {
    ContactReport c;
    if (r.soft) {
      if (r.a >= soft_.bodies().size()) continue;
      c.a = soft_.bodies()[r.a].desc.id;
    } else if (r.rod) {
      if (r.a >= rods_.rods().size()) continue;
      c.a = rods_.rods()[r.a].desc.id;
    } else {
      if (r.a >= static_cast<uint32_t>(bodies_.size())) continue;
      c.a = bodies_.id[r.a];
    }
    if (r.soft_b) {
      if (r.b >= soft_.bodies().size()) continue;
      c.b = soft_.bodies()[r.b].desc.id;
    } else {
      if (r.b >= static_cast<uint32_t>(bodies_.size())) continue;
      c.b = bodies_.id[r.b];
    }
    c.vertex = r.vertex;
    c.point = r.contact.position;
    c.normal = r.contact.normal;
    c.normal_impulse = r.normal_impulse;
    c.impulse = r.impulse;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ligature
