#pragma once
// The projected successive-over-relaxation LCP solver of the oriented-strands formulation
// (Algorithm 2): A x - b = w, with per-row bounds instead of x >= 0 everywhere, so one
// solve carries bilateral rows (unbounded), unilateral rows (x >= 0) and friction rows
// (0 <= x <= mu x_normal, the complementarity of eq. 17 with its slack lambda folded into
// the bound; or a pair of tangent rows kept inside the friction disk). A fixed iteration count and a diagonal regularization epsilon keep it finite
// when the problem has no solution or A is singular (several constraints on one link).

#include <vector>

#include <Eigen/Core>

namespace ligature {

struct SorLcpOptions {
  double omega = 1.0;       // relaxation, in (0, 2)
  double epsilon = 1e-9;    // added to each diagonal term, relative to the largest one
  int iterations = 60;      // fixed number of sweeps
};

struct LcpBound {
  enum class Kind { kBilateral, kUnilateral, kFriction };
  Kind kind = Kind::kUnilateral;
  int normal = -1;  // kFriction: the row of its normal force
  double mu = 0.0;  // kFriction: x <= mu * x[normal]
  // kFriction with a partner (the second tangent of the same contact): the pair is kept in
  // the disk |(x, x[partner])| <= mu * x[normal] instead, each of sign free.
  int partner = -1;
};

// Solves for x (resized, started at zero as in Algorithm 2).
void SorLcp(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<LcpBound>& bounds,
            const SorLcpOptions& options, Eigen::VectorXd* x);

}  // namespace ligature
