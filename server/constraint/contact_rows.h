#pragma once
// Rows of a contact: a unilateral normal row, plus two tangent rows with Coulomb friction;
// and, apart, its rolling and spinning resistance rows.

#include "server/collision/contact.h"
#include "server/constraint/constraint_rows.h"

namespace ligature {

// The two bodies of a contact as the row builder needs them: dense index (or kWorldBody),
// origin, and free-motion velocities.
struct ContactBody {
  uint32_t index = kWorldBody;
  Vec3 origin = Vec3::Zero();
  Vec3 linear_velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();
};

// A point with linear DOFs only (a deformable body's), as a contact's body.
inline ContactBody PointBody(uint32_t index, const Vec3& at, const Vec3& velocity) {
  return {index, at, velocity, Vec3::Zero()};
}

// Penetration left alone, so that resting contacts persist from tick to tick (m).
inline constexpr double kPenetrationSlop = 5e-4;
// Fraction of the remaining penetration removed per tick. Removing all of it at once turns
// the correction into a separating velocity and makes stacks jitter.
inline constexpr double kPenetrationRecovery = 0.2;

// How a contact row treats overlap: the depth left alone, so that resting contacts persist
// (m), and the share of the rest it removes per step.
struct PenetrationRecovery {
  double slop = kPenetrationSlop;
  double rate = kPenetrationRecovery;
};
// A substep removes all overlap beyond 0.2 mm: its relaxation takes that push out of the
// velocities (World::RelaxSubstep), so it cannot make stacks jitter. A tighter slop keeps
// bodies resting on several others (a wall's top bricks) bouncing out of overlaps their
// neighbours' pushes leave.
inline constexpr PenetrationRecovery kSubstepRecovery{2e-4, 1.0};

// Approach speed below which a contact does not bounce (m/s), so resting contacts rest.
inline constexpr double kBounceThreshold = 0.2;

// The gap a contact row tries to keep: a separation counts in full (speculative contact);
// a penetration beyond the slop is recovered gradually.
double ContactGap(double distance, PenetrationRecovery recovery = {});

// A deterministic orthonormal tangent pair for a unit normal.
void TangentBasis(const Vec3& n, Vec3* t1, Vec3* t2);

// Builds the block of one contact point (normal from A to B). The violation after free
// motion is the gap (ContactGap) plus the relative free displacement over the step, h v_rel.
// With friction > 0 the block is a 3D friction contact; otherwise a 1D unilateral one.
ConstraintBlock MakeContactBlock(const ContactPoint& p, const ContactBody& a, const ContactBody& b,
                                 double friction, double h, PenetrationRecovery recovery = {});

// A contact's resistance to rolling and spinning: lever arms (m) bounding the torques
// about its tangents and about its normal by that arm times its normal force.
struct ContactTorqueFriction {
  double rolling = 0.0;
  double spinning = 0.0;
};

// Appends to `rows` the angular blocks of the contact whose block is rows->blocks[contact]
// (kRollingFriction, bounded by its normal force): rolling (the relative angular motion of
// B and A about the two tangents of TangentBasis, dimension 2) when `arms.rolling` > 0,
// spinning (about the normal, dimension 1) when `arms.spinning` > 0. Their violations after
// free motion are the relative free rotations over the step, h (w_b - w_a) . axis (rad).
void AppendContactTorqueBlocks(const ContactPoint& p, const ContactBody& a,
                               const ContactBody& b, uint32_t contact,
                               const ContactTorqueFriction& arms, double h,
                               ConstraintRows* rows);

// Starts a block from the forces a warm-start map kept for its key last tick, if any.
template <typename Map>
void WarmStartBlock(const Map& warm, const typename Map::key_type& key,
                    ConstraintBlock* block) {
  const auto it = warm.find(key);
  if (it != warm.end()) block->force.head(block->dim) = it->second.head(block->dim);
}

}  // namespace ligature
