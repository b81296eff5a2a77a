#pragma once
// Soft bodies against rigid bodies through the world's constraint solve: each boundary
// vertex near a rigid shape becomes a solver point of its soft body, with one contact
// block per touching shape, warm-started from last tick's force at the same vertex against
// the same body; and each edge or corner of a rigid shape (or a thin sphere or capsule)
// over the middle of a surface triangle, a point of that triangle, warm-started from last
// tick's force of the same feature on the same triangle.

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/geometry/shape_features.h"
#include "server/world/coupling/coupling.h"

namespace ligature {

class SoftRigidCoupling final : public Coupling {
 public:
  // A soft body's vertex, or a point of one of its surface triangles, against a rigid body
  // (A the soft point, as solver body bodies.size() + point, B the rigid body).
  struct Contact {
    int soft = 0;
    int vertex = 0;  // -1 for a point of a triangle (ctx.soft_points[point] says where)
    uint32_t point = 0;
    uint32_t rigid = 0;
    ContactPoint contact;
    // Its warm start's key with soft and rigid: the vertex, or for hit k (0 or 1) of a
    // feature (of F) over a triangle, -1 - 2 (triangle F + feature) - k; INT_MIN (no warm
    // start) where that overflows.
    int warm_key = 0;
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
  // Last tick's forces by (soft body, Contact::warm_key, rigid body), N.
  const absl::flat_hash_map<std::tuple<int, int, uint32_t>, Vec3>& warm() const {
    return warm_;
  }

 private:
  // A soft body's surface triangles over the step: their start-of-tick bounds and how far
  // their fastest vertex moves (filled on first use for each body).
  using SurfaceBounds = std::vector<std::pair<Aabb, double>>;
  void FindFaceContacts(const WorldView& w, StepContext& ctx, int s, uint32_t i, bool tool,
                        const Aabb& swept, SurfaceBounds* faces);

  std::vector<Contact> contacts_;
  // A feature's hit k on surface triangle t.
  struct FaceHit {
    size_t triangle = 0;
    int k = 0;
    TriangleFeatureHit hit;
  };
  // Scratch: the rigid body's features, and one feature's deep hits on the surface triangles.
  std::vector<ShapeFeature> features_;
  std::vector<FaceHit> sunk_;
  size_t first_block_ = 0;  // the contacts' first block in ctx.rows
  absl::flat_hash_map<std::tuple<int, int, uint32_t>, Vec3> warm_;
};

}  // namespace ligature
