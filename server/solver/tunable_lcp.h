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
// when that estimate lies inside). Held forces are refreshed only once the CG residual has
// dropped below the refresh, so CG keeps its momentum between refreshes. As the paper says,
// friction is not guaranteed to converge: with much relative sliding, or tall frictional
// stacks, the sets can keep changing and the residual stall; the result is then the
// current iterate (finite, forces inside their cones, no pulling contact).
//
// Products with W are matrix free: H^T x is accumulated per body, each body's compliance
// applied, then H, in time linear in rows plus bodies. The bodies' displacements under the current forces are
// kept up to date step by step and change by change, so a set change costs one product
// with H (not with W) and the result needs no product at all. All scratch storage is kept between solves, so a solve
// allocates only when the system grows.

#include <cstdint>
#include <span>
#include <vector>

#include "server/solver/solver.h"

namespace ligature {

class TunableLcpSolver final : public ConstraintSolver {
 public:
  SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                    const SolverOptions& options, std::vector<Vec6>* displacements) override;

 private:
  // What a scalar row is in the active-set method.
  enum class RowKind : uint8_t {
    kBilateral,  // always active
    kNormal,     // unilateral: clamped (active) or vanishing (inactive, force 0)
    kFriction,   // active with its contact's normal while sticking; held on the cone else
    kInert,      // no compliance on either side, or friction with mu = 0: force stays 0
  };
  // Per-block data constant during one solve.
  struct BlockCache {
    uint32_t first_row = 0;       // index of the block's row 0 in the stacked rows
    bool has_friction = false;    // some row of the block is a (non-inert) friction row
    double friction_scale = 0.0;  // W diagonal shared by the friction rows (m/N)
  };

  void Prepare(const ConstraintRows& rows, std::span<const BodyCompliance> compliance);
  // body = C H^T x (per body), then y = H body; x and y are stacked over all rows.
  void Spread(const ConstraintRows& rows, const std::vector<double>& x,
              std::vector<Vec6>* body) const;
  void Gather(const ConstraintRows& rows, const std::vector<Vec6>& body,
              std::vector<double>* y) const;
  // delta = delta_free + H body_f_.
  void RefreshViolation(const ConstraintRows& rows);
  // body_f_ += C H^T df for a change df of block b's forces.
  void SpreadBlockChange(const ConstraintBlock& b, const Vec3& df);
  Vec3 BlockForce(const ConstraintBlock& b, size_t bi) const;
  // Moves unilateral rows between the clamped and vanishing sets, clamps sticking friction
  // into its cone and refreshes held friction whose change would exceed hold_threshold (m).
  // Returns whether any force or set changed.
  bool CheckInequalities(const ConstraintRows& rows, double switch_threshold,
                         double hold_threshold);
  // The force the local Coulomb law gives a held friction block, and its distance (m, as
  // the displacement the change would cause) from the current one. Sets *sticks when the
  // stick estimate lies inside the cone.
  double HeldFrictionTarget(const ConstraintBlock& b, size_t bi, double target[2],
                            bool* sticks) const;
  // Scales the friction force of a block back onto its cone if it lies outside; returns
  // whether it did.
  bool ClampToCone(const ConstraintBlock& b, uint32_t k);
  // The friction part of CheckInequalities for one block whose friction is in play.
  bool CheckFriction(const ConstraintBlock& b, size_t bi, double hold_threshold);
  // Largest |delta| (m) over the active (equality) rows.
  double EqualityResidual() const;
  // Starts a new CG sequence on the current active set from the current forces.
  void RestartCg();
  // Largest violation (m): active equality rows, unilateral complementarity, friction law.
  double Residual(const ConstraintRows& rows) const;

  std::vector<RowKind> kind_;     // per row
  std::vector<BlockCache> block_;
  std::vector<uint8_t> active_;   // per row
  std::vector<uint8_t> held_;     // per block: friction held on the cone (sliding)
  std::vector<double> free_;      // delta_free per row
  std::vector<double> precond_;   // inverse Jacobi scale per row (0 for inert rows)
  std::vector<double> f_;         // forces
  std::vector<double> delta_;     // delta_free + W f
  std::vector<double> z_;         // preconditioned CG residual (the residual is -delta)
  std::vector<double> p_;         // CG direction, 0 on inactive rows
  std::vector<double> q_;         // W p
  std::vector<Vec6> body_;        // per-body accumulator of C H^T x
  std::span<const BodyCompliance> compliance_;  // of the current solve
  std::vector<Vec6> body_f_;      // C H^T f: the bodies' displacements under the forces
  double rz_ = 0.0;               // r . z of the current CG sequence
};

}  // namespace ligature
