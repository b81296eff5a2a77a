#pragma once
// Tunable active-set LCP solver (Mendoza, Galizzi, Laugier, Faure, "Dynamic simulation and
// 3D interaction", 2003, section 3.2).
// Solves delta = W f + delta_free with W = H C H^T over all scalar rows at once: a
// conjugate-gradient step on the active rows, then a check of the inequalities (clamped
// unilateral rows that pull are released, vanishing rows that penetrate are clamped, friction
// is clamped into its cone), and a CG restart whenever that check changed anything. It can
// be stopped after any step, which makes its cost tunable through the iteration cap and the
// time budget; warm-started forces are corrected rather than recomputed.
//
// Friction rows are equality rows (stick) until a step takes them out of the cone. Their
// contact is then held on the cone: out of the CG system, its force set by the local Coulomb
// law (the stick estimate f_t - delta_t / w_t projected onto the cone, or back to sticking
// when that estimate lies inside). Held forces are refreshed, and sticking forces taken
// onto the cone, only once the change matters more than what CG still has to do (its
// largest violation on the active rows), so CG keeps its momentum between such changes and
// a solve whose normal forces are still growing does not let its contacts slide on cones
// that are still too narrow. As the paper says, friction is not guaranteed to converge:
// with much relative sliding, or tall frictional stacks, the sets can keep changing and the
// residual stall; the result is then the current iterate (finite, forces inside their
// cones, no pulling contact).
//
// A contact's rolling and spinning resistance (kRollingFriction blocks, angular rows) is
// always held: never a CG row, its torque set by the same local law (the stick estimate
// f - delta / w projected onto the bound: a disc for rolling, an interval for spinning,
// the lever arm times its contact's current normal force) and refreshed on the same
// terms. As CG rows they would be redundant with the normal rows of a flat contact patch
// (both stop a box tipping), and their torque and the unilateral normals would trade the
// tipping moment back and forth between the sets without end. While its contact
// vanishes the torque is zero.
//
// Bodies may also be points of a deformable body coupled through it (CoupledPoints, as in
// the Gauss-Seidel solve): a force on one point then moves all of its group's points,
// through the group's dense compliance, in the products with W and in every change.
//
// A joint's drive (kDrive, one row) is a friction row with a fixed bound, its maximum
// force. A motor (no compliance) is an equality row while its force lies within the bound
// and is held on the bound beyond it, as friction is. A spring is always held, its force
// set by the local law with its compliance gamma (the estimate f - (delta + gamma f) /
// (w + gamma), clamped to the bound), as rolling friction is: as a CG row its compliance
// would change W.
//
// Products with W are matrix free: H^T x is accumulated per body, each body's compliance
// applied, then H, in time linear in rows plus bodies. The rows are copied once per solve
// into a compact layout (each scalar row's two Jacobian halves and body slots side by side;
// the immovable world is one extra body slot without compliance, so no row branches on it;
// a contact's three rows as its point's frame and lever arms, PointFrame), and each step
// makes two passes over them: the spread of the direction (which also gives
// p . W p per body) and the gather fused with the update of forces, violations and the
// preconditioned residual. The bodies' displacements under the current forces are kept up
// to date step by step and change by change, so a set change costs a product with H on the
// rows of the bodies it moved only (not with W), fused with the CG restart, and the result
// needs no product at all. All scratch storage is kept between solves, so a solve allocates
// only when the system grows.
//
// The time budget is checked during the preparation as well as between steps. A first step
// is begun only while the end of the solve (one pass over the rows) still fits in it, and
// a later one only while a step as long as the last one also fits, so a solve ends at most
// one step after its budget, and after its first step only by how much a step outgrows
// the one before. A solve whose budget runs out before its first step returns its
// starting iterate (when min_iterations is 0; a cold one, or one told not to keep its warm
// forces, stops in its preparation with zero forces) or takes that one step; either way
// the forces it returns lie inside their bounds (no pulling contact, friction inside its
// cone), and the displacements are those of exactly these forces.
//
// One pass over the blocks prepares everything (rows, kinds, scales, starting sets and
// the starting forces' displacements), one starts the CG sequence (violations, restart,
// inequality check), and one ends the solve (violations brought up to date, residual,
// forces out and into their bounds: the last step, which no step follows, is not checked).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "server/solver/solve_clock.h"
#include "server/solver/solver.h"

namespace ligature {

class TunableLcpSolver final : public ConstraintSolver {
 public:
  SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                    const SolverOptions& options, std::vector<Vec6>* displacements) override;
  // The same with coupled point groups among the bodies.
  SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                    std::span<const CoupledPoints> coupled, const SolverOptions& options,
                    std::vector<Vec6>* displacements);

 private:
  // What a scalar row is in the active-set method.
  enum class RowKind : uint8_t {
    kBilateral,  // always active
    kNormal,     // unilateral: clamped (active) or vanishing (inactive, force 0)
    kFriction,   // active with its contact's normal while sticking; held on the cone else
    kInert,      // no compliance on either side, or friction with mu = 0: force stays 0
  };
  // One scalar row's Jacobian on its two bodies; a world side points at the extra slot.
  struct RowJacobian {
    std::array<double, 6> a;
    std::array<double, 6> b;
    uint32_t body_a = 0;
    uint32_t body_b = 0;
  };
  // Per-block data constant during one solve.
  struct BlockInfo {
    uint32_t first_row = 0;       // index of the block's row 0 in the stacked rows
    uint32_t body_a = 0;          // body slots (the world is the extra one)
    uint32_t body_b = 0;
    uint8_t dim = 1;
    ConstraintLaw law = ConstraintLaw::kBilateral;
    bool has_friction = false;    // some row of the block is a (non-inert) friction row
    double friction = 0.0;        // Coulomb coefficient
    double friction_scale = 0.0;  // W diagonal shared by the friction rows (m/N)
    double friction_scale_inv = 0.0;
    bool point = false;           // three rows of one point (PointFrame), not kept in jac_
    uint32_t normal_row = 0;      // kRollingFriction: its contact's normal row
    double compliance = 0.0;      // kDrive: the drive's own (m/N)
  };
  // A three-row block whose rows all move one point of each body (ConstraintBlock::point):
  // row d is [l_d, r_a x l_d] on body a and [-l_d, -(r_b x l_d)] on body b. Its products
  // go through the point's relative motion, with about half the arithmetic of three rows.
  struct PointFrame {
    std::array<double, 9> l;  // l_d at 3d
    std::array<double, 3> ra;
    std::array<double, 3> rb;
  };
  // A body's compliance, compact: linear (m/N), then the angular 3x3 row-major; `isotropic`
  // when that is a multiple of the identity (a sphere's, a cube's; to round-off), as
  // angular[0].
  struct BodyBlock {
    double linear = 0.0;
    std::array<double, 9> angular{};
    bool isotropic = true;
  };

  // How a preparation ended: in time; late (the clock expired during it, and it went on
  // for the starting forces' sake); or stopped there (the solve returns zero forces).
  enum class Prepared { kInTime, kLate, kStopped };
  // Copies the rows and compliance (and the coupled groups, SetGroups) into the compact
  // layout, with each row's kind and Jacobi scale, sets the starting forces and sets
  // (InitialBlockSets) and their displacements (body_f_), all in one pass over the blocks.
  // The clock is looked at every few blocks when `check_clock`; once expired, the
  // preparation stops if `stop_when_late`.
  Prepared Prepare(const ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                   std::span<const CoupledPoints> coupled, const SolveClock& clock, bool warm_start,
                   bool check_clock, bool stop_when_late);
  // Starting forces and sets of one block from the forces Prepare copied (zero without
  // warm start).
  void InitialBlockSets(size_t bi, bool warm_start);
  // Turns accumulated generalized forces into displacements; returns their sum of g . C g.
  double ApplyCompliance(std::vector<Vec6>* out);
  // Per body its coupled group (or -1) from `coupled`, kept for this solve.
  void SetGroups(std::span<const CoupledPoints> coupled);
  // W's diagonal on block bi's rows from the points of coupled groups among its bodies:
  // l_d^T G_pp l_d per grouped side, l_d the row's linear part there.
  Vec3 GroupDiagonal(size_t bi) const;
  // The frame of a point block (ConstraintBlock::point): l_d are its rows' linear part on
  // body a.
  static void SetPointFrame(const ConstraintBlock& b, PointFrame* frame);
  // W's diagonal on a point block's rows, from its frame and its bodies' compliance.
  static Vec3 PointDiagonal(const PointFrame& f, const BodyBlock& a, const BodyBlock& b);
  // q_d = H_d (da, db) for the first `count` rows of block bi, from its bodies'
  // displacements da and db. A point block measures the relative motion of its point,
  // (u_a + w_a x r_a) - (u_b + w_b x r_b), once and projects it on each l_d.
  void BlockDot(size_t bi, int count, const double* da, const double* db, double* q) const {
    const BlockInfo& c = block_[bi];
    if (c.point) {
      const PointFrame& f = frame_[bi];
      const double r0 = (da[0] + da[4] * f.ra[2] - da[5] * f.ra[1]) -
                        (db[0] + db[4] * f.rb[2] - db[5] * f.rb[1]);
      const double r1 = (da[1] + da[5] * f.ra[0] - da[3] * f.ra[2]) -
                        (db[1] + db[5] * f.rb[0] - db[3] * f.rb[2]);
      const double r2 = (da[2] + da[3] * f.ra[1] - da[4] * f.ra[0]) -
                        (db[2] + db[3] * f.rb[1] - db[4] * f.rb[0]);
      for (int d = 0; d < count; ++d) {
        q[d] = f.l[3 * d] * r0 + f.l[3 * d + 1] * r1 + f.l[3 * d + 2] * r2;
      }
      return;
    }
    for (int d = 0; d < count; ++d) q[d] = RowDot(jac_[c.first_row + d], da, db);
  }
  // ga, gb += H^T x for forces x on the rows of block bi. A point block's forces add up to
  // one force F = sum_d x_d l_d at the point: F and its moment r_a x F on body a, their
  // opposites on body b.
  void BlockSpread(size_t bi, const double* x, double* ga, double* gb) const {
    const BlockInfo& c = block_[bi];
    if (c.point) {
      const PointFrame& f = frame_[bi];
      double force[3];
      for (int k = 0; k < 3; ++k) {
        force[k] = x[0] * f.l[k] + x[1] * f.l[3 + k] + x[2] * f.l[6 + k];
      }
      for (int k = 0; k < 3; ++k) {
        ga[k] += force[k];
        gb[k] -= force[k];
      }
      ga[3] += f.ra[1] * force[2] - f.ra[2] * force[1];
      ga[4] += f.ra[2] * force[0] - f.ra[0] * force[2];
      ga[5] += f.ra[0] * force[1] - f.ra[1] * force[0];
      gb[3] -= f.rb[1] * force[2] - f.rb[2] * force[1];
      gb[4] -= f.rb[2] * force[0] - f.rb[0] * force[2];
      gb[5] -= f.rb[0] * force[1] - f.rb[1] * force[0];
      return;
    }
    for (int d = 0; d < c.dim; ++d) {
      const RowJacobian& j = jac_[c.first_row + d];
      for (int k = 0; k < 6; ++k) ga[k] += j.a[k] * x[d];
      for (int k = 0; k < 6; ++k) gb[k] += j.b[k] * x[d];
    }
  }
  // The next CG direction p (continued with beta, or restarted after a set change whose
  // pending displacements it gathers) spread into body_ in the same pass; returns p . W p.
  // A restart also measures the residual of the violations it leaves (as Finish does) into
  // *residual, when given.
  double SpreadDirection(bool restart, double beta, double* residual);
  // The start of a solve, in one pass: delta = delta_free + H body_f_, a fresh CG sequence
  // on the current active set from the current forces (z = -P delta on active rows,
  // p = z), and the inequalities checked (CheckNormal, CheckBlockFriction). Returns whether
  // anything changed; *equality gets the largest |delta| over active rows, *residual the
  // residual (infinite when something changed: the restart measures it).
  bool StartSequence(double tolerance, double* equality, double* residual);
  // j . (da, db): a row's Jacobian against its two bodies' displacements.
  static double RowDot(const RowJacobian& j, const double* da, const double* db) {
    double y = 0.0;
    for (int k = 0; k < 6; ++k) y += j.a[k] * da[k] + j.b[k] * db[k];
    return y;
  }
  // Row i's violation with the pending displacement changes of its bodies (change_)
  // gathered in, when either moved; stored in delta_.
  double GatherChange(size_t i) {
    const RowJacobian& j = jac_[i];
    if (changed_[j.body_a] | changed_[j.body_b]) {
      delta_[i] += RowDot(j, change_[j.body_a].data(), change_[j.body_b].data());
    }
    return delta_[i];
  }
  // Row i of a fresh CG sequence from its violation y: its residual and direction (zero on
  // inactive rows), adding to r.z and to the largest active violation.
  void RestartRow(size_t i, double y, double* rz, double* equality) {
    double z = 0.0;
    if (active_[i]) {
      z = -precond_[i] * y;
      *rz -= y * z;
      *equality = std::max(*equality, std::abs(y));
    }
    z_[i] = z;
    p_[i] = z;
  }
  // One CG step of length rz_ / pq along p_, whose displacements are in body_: forces,
  // violations, body_f_ and z_ updated; *beta for the next direction. Returns the largest
  // |delta| over active rows; *vanishing gets the deepest penetration of a vanishing row.
  double Step(double pq, double* beta, double* vanishing);
  // delta_free + H body_f_ for the rows of block bi, into out.
  void BlockViolation(size_t bi, double* out) const;
  // The pending changes join body_f_ (after their rows have gathered them).
  void JoinChanges();
  // change_ += C H^T df for a change df of block bi's forces (pending until applied).
  void SpreadBlockChange(size_t bi, const double* df);
  // out += C H^T df for a change df of block bi's forces; marks the moved bodies in `moved`
  // when given.
  void AddBlockDisplacement(size_t bi, const double* df, std::vector<Vec6>* out,
                            std::vector<uint8_t>* moved);
  // Moves unilateral rows between the clamped and vanishing sets, clamps sticking friction
  // into its cone and refreshes held friction, each when its change would exceed
  // hold_threshold (m), for block bi (CheckBlock) or all of them (CheckInequalities); a
  // change of forces joins the pending change. Returns whether any force or set changed.
  bool CheckBlock(size_t bi, double switch_threshold, double hold_threshold);
  // The normal part of CheckBlock; *friction_in_play tells whether the friction part is due.
  bool CheckNormal(size_t bi, double switch_threshold, bool* friction_in_play);
  // CheckNormal of a rolling-friction block: it follows its contact's normal row.
  bool CheckRollingContact(size_t bi, bool* friction_in_play);
  // The bound of a rolling block's torque (N m): its lever arm times its contact's normal
  // force, never below 0.
  // The bound of a rolling block (its lever arm times its contact's normal force) or of a
  // drive (its maximum force).
  double HeldBound(const BlockInfo& c) const {
    if (c.law == ConstraintLaw::kDrive) return c.friction;
    return c.friction * std::max(0.0, f_[c.normal_row]);
  }
  // Rolling friction and spring drives are always held: set by their local law, never CG
  // rows. A motor (a drive without compliance) is an equality row while within its bound.
  static bool AlwaysHeld(const BlockInfo& c) {
    return c.law == ConstraintLaw::kRollingFriction ||
           (c.law == ConstraintLaw::kDrive && c.compliance > 0.0);
  }
  bool CheckInequalities(double switch_threshold, double hold_threshold);
  // CheckFriction of block bi, with a change of its forces spread into the pending change.
  bool CheckBlockFriction(size_t bi, double hold_threshold);
  // The force the local Coulomb law gives a held friction block, and its distance (m, as
  // the displacement the change would cause) from the current one. Sets *sticks when the
  // stick estimate lies inside the cone.
  double HeldFrictionTarget(size_t bi, double target[2], bool* sticks) const;
  // Scales the friction force of a block back onto its cone if it lies outside; returns
  // whether it did.
  bool ClampToCone(size_t bi);
  // How far a block's friction force lies outside its cone, as the displacement its clamp
  // would cause (m); 0 inside.
  double ConeExcess(size_t bi) const;
  // The friction law's violation of a block (m): held, the distance from its Coulomb force;
  // sticking, its excess over the cone.
  double FrictionLawDistance(size_t bi) const;
  // The friction part of CheckBlock for one block whose friction is in play.
  bool CheckFriction(size_t bi, double hold_threshold);
  // The end of a solve in one pass over the blocks: each row's violation brought up to date
  // (gathering pending changes, or from body_f_ whole when `fresh`), the residual from them
  // (largest violation, m: active equality rows, unilateral complementarity, friction law),
  // and the forces back into the rows (friction clamped onto its cone); then the
  // displacements out. Returns the residual.
  double Finish(bool fresh, ConstraintRows& rows, std::vector<Vec6>* displacements);

  std::vector<RowKind> kind_;     // per row
  std::vector<RowJacobian> jac_;  // per row (but those of point blocks)
  std::vector<BlockInfo> block_;
  std::vector<PointFrame> frame_;  // per block; in use where BlockInfo::point
  bool has_points_ = false;        // some block is a point block
  std::vector<BodyBlock> body_c_;  // per body, plus the world slot (zero)
  // Coupled point groups of this solve; their points' own entries of body_c_ are zero.
  std::span<const CoupledPoints> groups_;
  std::vector<int> group_of_;     // per body (and the world slot): its group or -1
  Eigen::VectorXd group_force_;   // ApplyCompliance's scratch: a group's forces, 3 per point
  Eigen::VectorXd group_motion_;  // the groups' displacements, one after the other
  std::vector<uint8_t> active_;   // per row
  // Per row: its violation is kept up to date by the steps (all but the tangent rows of
  // vanishing contacts, whose violation is recomputed when their contact is clamped).
  std::vector<uint8_t> tracked_;
  std::vector<uint8_t> held_;     // per block: friction held on the cone (sliding)
  std::vector<uint32_t> friction_later_;  // StartSequence's scratch: blocks it looks at again
  std::vector<double> free_;      // delta_free per row
  std::vector<double> precond_;   // inverse Jacobi scale per row (0 for inert rows)
  std::vector<double> f_;         // forces
  std::vector<double> delta_;     // delta_free + W f
  std::vector<double> z_;         // preconditioned CG residual (the residual is -delta)
  std::vector<double> p_;         // CG direction, 0 on inactive rows
  std::vector<Vec6> body_;        // per-body C H^T p (and scratch)
  std::vector<Vec6> body_f_;      // C H^T f: the bodies' displacements under the forces
  std::vector<Vec6> change_;      // per body: displacement change of checks, not yet applied
  std::vector<uint8_t> changed_;  // per body (and the world slot, always 0): change_ in use
  size_t num_bodies_ = 0;         // without the world slot
  uint32_t num_rows_ = 0;         // rows of this solve (the per-row arrays may be longer)
  double rz_ = 0.0;               // r . z of the current CG sequence
  // Largest friction-law violation the last check left in place: held friction's distance
  // from its Coulomb force, sticking friction's excess over its cone (CheckFriction).
  double friction_distance_ = 0.0;
};

}  // namespace ligature
