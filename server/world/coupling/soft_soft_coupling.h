#pragma once
// Soft bodies against each other through the world's constraint solve: a boundary vertex
// of one soft body near another's surface is a contact between two solver points, the
// vertex and the surface point, warm-started from last tick's force at the same vertex
// against the same body.

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/world/coupling/coupling.h"

namespace ligature {

class SoftSoftCoupling final : public Coupling {
 public:
  // A vertex of soft body `soft_a` against a surface point of soft body `soft_b` (A the
  // vertex, solver body bodies.size() + point_a; B the surface point, + point_b).
  struct Contact {
    int soft_a = 0;
    int vertex = 0;
    uint32_t point_a = 0;
    int soft_b = 0;
    uint32_t point_b = 0;
    ContactPoint contact;
    double friction = 0.0;  // the two bodies' coefficients combined
  };

  void FindContacts(const WorldView& w, StepContext& ctx) override;
  void BuildRows(const WorldView& w, StepContext& ctx) override;
  void ApplySolvedForces(const WorldView& w, StepContext& ctx) override;
  void ForEachContact(
      absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const override;
  void SaveWarmStart(WorldSavedState* s) const override;
  void RestoreWarmStart(const WorldSavedState& s) override;

  // The soft points renumbered (GroupSoftPoints): old point p is now new_index[p].
  void RenumberSoftPoints(std::span<const uint32_t> new_index);
  const std::vector<Contact>& contacts() const { return contacts_; }

 private:
  std::vector<Contact> contacts_;
  size_t first_block_ = 0;  // the contacts' first block in ctx.rows
  // Last tick's forces by (soft body A, its vertex, soft body B), N.
  absl::flat_hash_map<std::tuple<int, int, int>, Vec3> warm_;
};

}  // namespace ligature
