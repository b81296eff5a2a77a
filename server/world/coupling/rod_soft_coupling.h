#pragma once
// Rods against soft bodies through the world's Gauss-Seidel solve: a rod sample near
// a soft body's surface joins a rod point (placed by the rods' coupled step,
// RodRigidCoupling) and a soft point of the body's surface. Not warm-started.

#include <cstdint>
#include <span>
#include <vector>

#include "server/world/coupling/coupling.h"

namespace ligature {

class RodSoftCoupling final : public Coupling {
 public:
  // A rod point against a soft body's surface point (A the rod point, B the soft point,
  // solver body bodies.size() + soft_point).
  struct Contact {
    uint32_t point = 0;
    int rod = 0;
    int soft = 0;
    uint32_t soft_point = 0;
    ContactPoint contact;
    double friction = 0.0;
  };

  // The candidates (ctx.rod_soft_candidates), before the rods' step begins; they become
  // contacts in PlaceContacts once it placed their rod points.
  void FindContacts(const WorldView& w, StepContext& ctx) override;
  // The candidates' contacts, their soft points joining ctx.soft_points (to be grouped
  // again by body), when the rods' step placed their rod points.
  void PlaceContacts(const WorldView& w, StepContext& ctx);
  void BuildRows(const WorldView& w, StepContext& ctx) override;
  void ApplySolvedForces(const WorldView& w, StepContext& ctx) override;
  void ForEachContact(
      absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const override;

  // The soft points renumbered (GroupSoftPoints): old point p is now new_index[p].
  void RenumberSoftPoints(std::span<const uint32_t> new_index);
  const std::vector<Contact>& contacts() const { return contacts_; }

 private:
  std::vector<Contact> contacts_;
  size_t first_block_ = 0;  // the contacts' first block in ctx.rows
};

}  // namespace ligature
