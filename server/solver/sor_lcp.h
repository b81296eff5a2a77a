#pragma once
// The projected successive-over-relaxation LCP solver of the oriented-strands formulation
// (Algorithm 2): A x - b = w, with per-row bounds instead of x >= 0 everywhere, so one
// solve carries bilateral rows (unbounded), unilateral rows (x >= 0) and friction rows
// (0 <= x <= mu x_normal, the complementarity of eq. 17 with its slack lambda folded into
// the bound; or a pair of tangent rows kept inside the friction disk). A fixed iteration count and a diagonal regularization epsilon keep it finite
// when the problem has no solution or A is singular (several constraints on one link).

#include <vector>

#include <Eigen/Core>

#include "server/constraint/strand/strand_rows.h"

namespace ligature {

struct SorLcpOptions {
  double omega = 1.0;       // relaxation, in (0, 2)
  double epsilon = 1e-9;    // added to each diagonal term, relative to the largest one
  int iterations = 60;      // fixed number of sweeps
};

// Solves for x (resized, started at zero as in Algorithm 2).
void SorLcp(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<LcpBound>& bounds,
            const SorLcpOptions& options, Eigen::VectorXd* x);

// Solves K f + a^0 - a^d (>=) 0 for the rows of `system` and adds the response sum
// f_j dalpha_j to alpha. Returns f.
Eigen::VectorXd SolveStrandRows(const StrandRowSystem& system, const Eigen::VectorXd& a0,
                                const SorLcpOptions& options, std::vector<Vec3>* alpha);

}  // namespace ligature
