#pragma once
// Constraint-space block Gauss-Seidel: the default solver. Solves delta = W f + delta_free
// with W = H C H^T, each block applying its own law (bilateral, unilateral, Coulomb
// friction, rolling friction bounded by its contact's current normal force) on its own
// dimension (1x1 to 3x3 blocks). The coupling sum over the other constraints,
// sum_j W_ij f_j, is evaluated through the bodies' accumulated correction displacements
// dq = C H^T f, which gives the same iterates as an assembled W in O(rows) memory. Bodies
// may also be points of a deformable body coupled through it (CoupledPoints): a force on
// one point then moves all the group's points, through the group's dense compliance.

#include <span>
#include <vector>

#include "server/solver/direct_blocks.h"
#include "server/solver/solver.h"

namespace ligature {

class GaussSeidelSolver final : public ConstraintSolver {
 public:
  SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                    const SolverOptions& options, std::vector<Vec6>* displacements) override;
  // The same with coupled point groups among the bodies.
  SolveResult Solve(ConstraintRows& rows, std::span<const BodyCompliance> compliance,
                    std::span<const CoupledPoints> coupled, const SolverOptions& options,
                    std::vector<Vec6>* displacements);

 private:
  // Per-block data constant during one solve.
  struct BlockCache {
    Eigen::Matrix<double, 6, 3> cjt_a;  // C_a H_a^T
    Eigen::Matrix<double, 6, 3> cjt_b;
    Mat3 w = Mat3::Identity();          // W_bb
    Mat3 w_inv = Mat3::Identity();
    Eigen::Matrix2d wt_inv = Eigen::Matrix2d::Identity();  // tangential block, friction only
  };
  // Prepares blocks [first, end) and the direct blocks.
  void Prepare(const ConstraintRows& rows, std::span<const BodyCompliance> compliance,
               std::span<const CoupledPoints> coupled, size_t first, bool direct_bilateral);
  // Adds the displacements a force change df on one side of a block causes: to that body,
  // or to every point of its coupled group.
  void Displace(uint32_t body, const BlockJacobian& j, const Eigen::Matrix<double, 6, 3>& cjt,
                const Vec3& df, std::span<const CoupledPoints> coupled, std::vector<Vec6>* dq);

  std::vector<BlockCache> cache_;
  DirectBlocks direct_;        // the bilateral blocks solved together, when asked for
  std::vector<int> group_of_;  // per body, its coupled group or -1
  Eigen::VectorXd group_response_;  // Displace's scratch: a group's 3 count displacements
};

}  // namespace ligature
