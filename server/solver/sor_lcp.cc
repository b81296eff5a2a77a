#include "server/solver/sor_lcp.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ligature {

void SorLcp(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<LcpBound>& bounds,
            const SorLcpOptions& options, Eigen::VectorXd* x) {
  const int n = static_cast<int>(b.size());
  assert(a.rows() == n && a.cols() == n && static_cast<int>(bounds.size()) == n);
  x->setZero(n);
  if (n == 0) return;
  const double eps = options.epsilon * std::max(a.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  for (int k = 0; k < options.iterations; ++k) {
    for (int i = 0; i < n; ++i) {
      // Lines 5-12: the Gauss-Seidel value of x_i from the other rows' current values.
      const double delta = (b[i] - (a.row(i).dot(*x) - a(i, i) * (*x)[i])) / (a(i, i) + eps);
      double xi = (1.0 - options.omega) * (*x)[i] + options.omega * delta;
      // Line 14, generalized to the row's bounds.
      switch (bounds[i].kind) {
        case LcpBound::Kind::kBilateral:
          break;
        case LcpBound::Kind::kUnilateral:
          xi = std::max(xi, 0.0);
          break;
        case LcpBound::Kind::kFriction: {
          const double limit = std::max(0.0, bounds[i].mu * (*x)[bounds[i].normal]);
          if (bounds[i].partner < 0) {
            xi = std::clamp(xi, 0.0, limit);
            break;
          }
          // Inside the disk: scale the pair back onto it.
          double& other = (*x)[bounds[i].partner];
          const double norm = std::hypot(xi, other);
          if (norm > limit) {
            const double scale = norm > 0.0 ? limit / norm : 0.0;
            xi *= scale;
            other *= scale;
          }
          break;
        }
      }
      (*x)[i] = xi;
    }
  }
}

Eigen::VectorXd SolveStrandRows(const StrandRowSystem& system, const Eigen::VectorXd& a0,
                                const SorLcpOptions& options, std::vector<Vec3>* alpha) {
  const std::vector<StrandRow>& rows = system.rows();
  const int m = static_cast<int>(rows.size());
  Eigen::VectorXd b(m);
  std::vector<LcpBound> bounds(m);
  for (int i = 0; i < m; ++i) {
    b[i] = rows[i].desired - a0[i];
    bounds[i] = rows[i].bound;
  }
  Eigen::VectorXd f;
  SorLcp(system.K(), b, bounds, options, &f);
  system.AddResponse(f, alpha);
  return f;
}

}  // namespace ligature
