#pragma once
// Rods against rigid bodies through the world's Gauss-Seidel solve. This coupling also
// begins the rods' coupled step: it places every rod point the solve takes (its own
// contacts' and the rod-soft candidates'), with their constrained compliance in groups.

#include <cstdint>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/world/coupling/coupling.h"

namespace ligature {

class RodRigidCoupling final : public Coupling {
 public:
  // A rod point against a rigid body (A the point, as solver body ctx.rod_first_point +
  // point, B the rigid body); `contact` is the rods' contact `contact` (RodWorld's order).
  struct Contact {
    uint32_t point = 0;
    uint32_t rigid = 0;
    int rod = 0;
    int sample = 0;
    ContactPoint contact;
  };

  // Needs ctx.rod_soft_candidates found first (RodSoftCoupling::FindContacts).
  void FindContacts(const WorldView& w, StepContext& ctx) override;
  // Also numbers the rod points, after the soft points (ctx.rod_first_point).
  void BuildRows(const WorldView& w, StepContext& ctx) override;
  void AddCompliance(const WorldView& w, StepContext& ctx) override;
  void ApplySolvedForces(const WorldView& w, StepContext& ctx) override;
  void ForEachContact(
      absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const override;
  void SaveWarmStart(WorldSavedState* s) const override;
  void RestoreWarmStart(const WorldSavedState& s) override;

  // Drops the warm starts (they name rods and rigid bodies by index, which a removal
  // shifts).
  void ForgetWarmStart() { warm_.clear(); }
  const std::vector<Contact>& contacts() const { return contacts_; }

 private:
  std::vector<Contact> contacts_;
  size_t first_block_ = 0;  // the contacts' first block in ctx.rows
  std::vector<Obstacle> start_obstacles_;  // rigid shapes at the start of the tick
  std::vector<CoupledPoints> groups_;  // first relative to ctx.rod_first_point
  // Last tick's forces by (rod, sample, rigid body), N.
  absl::flat_hash_map<std::tuple<int, int, uint32_t>, Vec3> warm_;
};

}  // namespace ligature
