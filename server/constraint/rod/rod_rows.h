#pragma once
// Rows of the constrained rod system for each rod constraint kind: the Jacobian J on the
// rods' unknowns (and on the slide of a sliding constraint), and E = -g, the violation g
// to remove, both evaluated at the given rod states. Constraints that are linear in the
// unknowns (position, orientation, plane, axis, fusion, relative plane) are met exactly by
// one solve; the others (sphere, distance, keyholes) are re-linearized at the corrected
// state until they are (Newton steps on the constraint manifold).

#include <span>

#include "server/collision/rod_contacts.h"
#include "server/collision/rod_pair_contacts.h"
#include "server/constraint/rod/kkt_rows.h"
#include "server/constraint/rod/rod_constraint.h"
#include "server/math/transform.h"
#include "server/model/rod/rod_model.h"

namespace ligature {

// A rod as the rows see it: constant model, state, and where its unknowns start in the
// system (-1: the rod is held, its points are constants).
struct RodView {
  const RodModel* model = nullptr;
  const RodState* state = nullptr;
  int first_point = -1;
};

// A constraint with its resolved rods and its changing state.
struct RodConstraint {
  RodConstraintDesc desc;
  int rod_a = -1;
  int rod_b = -1;
  double u_a = 0.0;  // slides for keyholes (relative keyholes slide on rod a)
  double u_b = 0.0;
  bool active = true;  // unilateral kinds: pushing this step
  bool released = false;  // sliding kinds: the rod slid out (removed after the step)
  // A keyhole whose point is a dynamic body (a bead threaded on the rod): the body is a
  // point of mass bead_mass, an extra point of the system (bead_point, -1: none) whose
  // displacement bead_push this step moves the body.
  int bead_point = -1;
  double bead_mass = 0.0;
  Vec3 bead_push = Vec3::Zero();
  // The spline basis at u_a and u_b, kept while they do not move (rows are rebuilt several
  // times a step).
  struct CachedSample {
    double u = -1.0;
    SplineSample s;
  };
  mutable CachedSample sample_a, sample_b;
  // Fusion: the rotation taking rod a's unit tangent to rod b's, carried along with a.
  Mat3 relative = Mat3::Identity();
  Vec3 reference_tangent = Vec3::UnitX();

  // Fixed for one step (PrepareRodConstraintStep).
  Vec3 target = Vec3::Zero();      // world
  Vec3 direction = Vec3::UnitX();  // world, unit
  Vec3 tangent_target = Vec3::UnitX();  // x' to reach (orientation, oriented keyhole)
  double tangent_scale = 1.0;      // fusion: |x'_b| / |x'_a| at the step's start
};

// Computes the step-fixed quantities from the states at the start of the step and, for
// constraints that follow a body, from that body's pose.
void PrepareRodConstraintStep(RodConstraint& c, std::span<const RodView> rods,
                              const Transform* follow_pose);

// Which unknowns a system has per control point (see KktProblem::dofs_per_point): all four,
// the positions alone (rows on twist left out), or the twist alone (only twist rows).
enum class RodDofs { kAll = 4, kPositions = 3, kTwist = 1 };

// The rows of `c` at the given states (slides at c.u_a); h scales keyhole friction.
KktGroup BuildRodRows(const RodConstraint& c, std::span<const RodView> rods, double h,
                      RodDofs dofs = RodDofs::kAll);

// Contact rows' compliance (m/N): a rod pressing with 1 N sinks 10 um into the obstacle.
// Rigid supports under a bending rod would take alternating loads (some pulling) and the
// active set would cycle; this thin elastic layer spreads the load so that it settles.
inline constexpr double kRodContactCompliance = 1e-5;

// The unilateral row of a rod-obstacle contact in the positions system: its gap at the
// given states, distance + push - n . (x(u) - anchor) >= 0; a dynamic obstacle's push is
// the group's slide, with its inertia mass / h^2.
KktGroup BuildRodContactRow(const RodContact& c, std::span<const RodView> rods, double h);

// The unilateral row of a contact between two rod points, their gap at the given states
// distance + n . ((x_b(u_b) - anchor_b) - (x_a(u_a) - anchor_a)) >= 0, compliant like an
// obstacle contact. No rows when both rods are held.
KktGroup BuildRodPairContactRow(const RodPairContact& c, std::span<const RodView> rods);

// Largest violation (m, or rad for twist) a group's rows describe: |g| for active rows,
// the penetration max(0, -g) for inactive unilateral ones.
double GroupViolation(const RodConstraint& c, const KktGroup& group);

}  // namespace ligature
