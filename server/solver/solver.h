#pragma once
// The interface every constraint solver implements: it sees constraint rows and per-body
// compliance, never the bodies, and returns each body's correction displacement.

#include <span>
#include <vector>

#include "server/constraint/constraint_rows.h"
#include "server/solver/compliance.h"

namespace ligature {

struct SolverOptions {
  int max_iterations = 20;
  double tolerance = 1e-7;   // m: stop when no row's violation changes by more in a sweep
  bool warm_start = true;    // start from the forces already in the rows
  // Wall-clock budget for this solve (us); 0 means none. The solver stops after the
  // iteration during which the budget ran out.
  double time_budget_us = 0.0;
  // Steps taken even when the budget is already spent (the tunable solver): 1 keeps the
  // rule above; 0 lets a solve whose budget ran out during its preparation return its
  // starting iterate without any step.
  int min_iterations = 1;
  // With min_iterations 0, a warm-started solve whose budget runs out during its
  // preparation still finishes it and returns its warm forces (true), or returns zero
  // forces at once (false). A cold solve returns zero forces.
  bool keep_warm_when_late = true;
  // Gauss-Seidel: the first `kept_blocks` blocks have the directions and compliance of the
  // solver's last call (only their violations changed), and that call's preparation is
  // reused for them; the blocks after them are prepared anew.
  size_t kept_blocks = 0;
  // Gauss-Seidel: the normal row of each contact between two moving bodies is soft, with a
  // compliance of this share of its own W_nn (dimensionless, >= 0; 0: rigid). A loaded
  // contact then yields by that share of how far its force would move it, which damps the
  // sweeps' errors that rock a stack. Contacts with static and kinematic bodies stay rigid:
  // a light body pressed hard onto the ground would otherwise sink by that share of its
  // force's push.
  double contact_softness = 0.0;
  // Gauss-Seidel: the bilateral blocks (joints) are solved together and exactly in each
  // sweep (DirectBlocks), the others block by block around them.
  bool direct_bilateral = false;
};

struct SolveResult {
  int iterations = 0;
  double residual = 0.0;          // m, largest violation change in the last iteration
  bool budget_exhausted = false;  // stopped by the time budget, not by convergence or cap
  // With a time budget (tunable solver): how long this solve would have taken with one
  // step, i.e. its preparation, start and end plus its first step without its check (us);
  // 0 when it took none.
  double one_step_us = 0.0;
};

class ConstraintSolver {
 public:
  virtual ~ConstraintSolver() = default;
  // Solves rows in place (forces out) and writes each body's correction displacement
  // [dx, dtheta] to `displacements` (sized to compliance.size()).
  virtual SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                            const SolverOptions& options, std::vector<Vec6>* displacements) = 0;
};

}  // namespace ligature
