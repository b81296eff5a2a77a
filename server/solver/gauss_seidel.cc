#include "server/solver/gauss_seidel.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "server/solver/constraint_laws.h"
#include "server/solver/solve_clock.h"

namespace ligature {
namespace {

// C H^T for one body of a block (zero for the world and for bodies without compliance).
Eigen::Matrix<double, 6, 3> ComplianceTimesJt(const BlockJacobian& j, const BodyCompliance& c) {
  Eigen::Matrix<double, 6, 3> out;
  out.topRows<3>() = c.linear * j.leftCols<3>().transpose();
  out.bottomRows<3>() = c.angular * j.rightCols<3>().transpose();
  return out;
}

// The normal force (N) of the contact block a rolling-friction block is bounded by: its
// current iterate, never a pull.
double ContactNormalForce(const ConstraintRows& rows, uint32_t contact) {
  assert(contact < rows.blocks.size());
  return std::max(0.0, rows.blocks[contact].force.x());
}

}  // namespace

// Builds C H^T and the diagonal compliance block W_bb (and its inverse) of the blocks from
// `first` on. A point of a coupled group contributes its own 3x3 block C_pp (linear DOFs
// only); its coupling to the group's other points acts through Displace.
void GaussSeidelSolver::Prepare(const ConstraintRows& rows,
                                std::span<const BodyCompliance> compliance,
                                std::span<const CoupledPoints> coupled, size_t first,
                                bool direct_bilateral) {
  group_of_.assign(compliance.size(), -1);
  for (size_t g = 0; g < coupled.size(); ++g) {
    for (int p = 0; p < coupled[g].count; ++p) {
      group_of_[coupled[g].first + p] = static_cast<int>(g);
    }
  }
  const auto cjt_of = [&](uint32_t body, const BlockJacobian& j) {
    const int g = group_of_[body];
    if (g < 0) return ComplianceTimesJt(j, compliance[body]);
    const int p = static_cast<int>(body - coupled[g].first);
    Eigen::Matrix<double, 6, 3> out = Eigen::Matrix<double, 6, 3>::Zero();
    out.topRows<3>() =
        coupled[g].compliance.block<3, 3>(3 * p, 3 * p) * j.leftCols<3>().transpose();
    return out;
  };
  cache_.resize(rows.blocks.size());
  for (size_t i = first; i < rows.blocks.size(); ++i) {
    const ConstraintBlock& b = rows.blocks[i];
    BlockCache& c = cache_[i];
    c.cjt_a.setZero();
    c.cjt_b.setZero();
    Mat3 w = Mat3::Zero();
    if (b.body_a != kWorldBody) {
      c.cjt_a = cjt_of(b.body_a, b.jacobian_a);
      w += b.jacobian_a * c.cjt_a;
    }
    if (b.body_b != kWorldBody) {
      c.cjt_b = cjt_of(b.body_b, b.jacobian_b);
      w += b.jacobian_b * c.cjt_b;
    }
    // Unused dimensions get an identity so the 3x3 inverse stays defined.
    for (int d = b.dim; d < 3; ++d) {
      w.row(d).setZero();
      w.col(d).setZero();
      w(d, d) = 1.0;
    }
    // A block on two immovable bodies has no compliance: it can do nothing.
    for (int d = 0; d < b.dim; ++d) {
      if (w(d, d) <= 0.0) w(d, d) = 1.0;
    }
    c.w = w;
    c.w_inv = w.inverse();
    if (b.law == ConstraintLaw::kFrictionContact) c.wt_inv = w.block<2, 2>(1, 1).inverse();
  }
  // Bilateral blocks on rigid bodies join the direct solve; points of coupled groups move
  // through their group's dense compliance and stay with the sweeps.
  const auto rigid = [&](uint32_t body) { return body == kWorldBody || group_of_[body] < 0; };
  const auto eligible = [&](uint32_t i) {
    const ConstraintBlock& b = rows.blocks[i];
    return direct_bilateral && b.law == ConstraintLaw::kBilateral && rigid(b.body_a) &&
           rigid(b.body_b);
  };
  const auto response = [&](uint32_t i, int side) -> const Eigen::Matrix<double, 6, 3>& {
    return side == 0 ? cache_[i].cjt_a : cache_[i].cjt_b;
  };
  direct_.Prepare(rows, eligible, response);
}

void GaussSeidelSolver::Displace(uint32_t body, const BlockJacobian& j,
                                 const Eigen::Matrix<double, 6, 3>& cjt, const Vec3& df,
                                 std::span<const CoupledPoints> coupled,
                                 std::vector<Vec6>* dq) {
  const int g = group_of_[body];
  if (g < 0) {
    (*dq)[body].noalias() += cjt * df;
    return;
  }
  // The group's response to a force on point p is the compliance's column strip p times
  // that force: one matrix-vector product into a reused buffer, then spread over the points.
  const CoupledPoints& group = coupled[g];
  const int p = static_cast<int>(body - group.first);
  const Vec3 force = j.leftCols<3>().transpose() * df;
  group_response_.resize(3 * group.count);
  group_response_.noalias() = group.compliance.middleCols<3>(3 * p) * force;
  for (int q = 0; q < group.count; ++q) {
    (*dq)[group.first + q].head<3>() += group_response_.segment<3>(3 * q);
  }
}

SolveResult GaussSeidelSolver::Solve(ConstraintRows& rows,
                                     std::span<const BodyCompliance> compliance,
                                     const SolverOptions& options,
                                     std::vector<Vec6>* displacements) {
  return Solve(rows, compliance, {}, options, displacements);
}

SolveResult GaussSeidelSolver::Solve(ConstraintRows& rows,
                                     std::span<const BodyCompliance> compliance,
                                     std::span<const CoupledPoints> coupled,
                                     const SolverOptions& options,
                                     std::vector<Vec6>* displacements) {
  std::vector<Vec6>& dq = *displacements;
  dq.assign(compliance.size(), Vec6::Zero());
  SolveResult result;
  if (rows.blocks.empty()) return result;
  if (options.kept_blocks < rows.blocks.size() || cache_.size() != rows.blocks.size()) {
    const size_t kept = std::min(options.kept_blocks, std::min(cache_.size(), rows.blocks.size()));
    Prepare(rows, compliance, coupled, kept, options.direct_bilateral);
  }

  // The displacements a force change df on block i causes, added to dq.
  const auto apply = [&](uint32_t i, const Vec3& df) {
    const ConstraintBlock& b = rows.blocks[i];
    const BlockCache& c = cache_[i];
    if (b.body_a != kWorldBody) Displace(b.body_a, b.jacobian_a, c.cjt_a, df, coupled, &dq);
    if (b.body_b != kWorldBody) Displace(b.body_b, b.jacobian_b, c.cjt_b, df, coupled, &dq);
  };

  // Warm start: the displacements the previous forces cause.
  for (uint32_t i = 0; i < rows.blocks.size(); ++i) {
    ConstraintBlock& b = rows.blocks[i];
    if (!options.warm_start) b.force.setZero();
    if (!b.force.isZero()) apply(i, b.force);
  }

  // Sweeps: each block sees the latest forces of the others through dq (eq. 1). The sweep
  // direction alternates (symmetric Gauss-Seidel), so that along a chain of constraints a
  // correction travels end to end in one pair of sweeps instead of one link per sweep.
  const SolveClock clock(options.time_budget_us);
  const size_t count = rows.blocks.size();
  const double softness = options.contact_softness;
  // The direct blocks' exact step comes first in a forward sweep and last in a backward
  // one, so that sweeps stay symmetric.
  for (int it = 0; it < options.max_iterations; ++it) {
    double residual = 0.0;
    const bool forward = it % 2 == 0;
    if (forward && !direct_.empty()) residual = direct_.Step(rows, dq, apply);
    for (size_t step = 0; step < count; ++step) {
      const size_t i = forward ? step : count - 1 - step;
      if (direct_.IsMember(static_cast<uint32_t>(i))) continue;
      ConstraintBlock& b = rows.blocks[i];
      const BlockCache& c = cache_[i];
      Vec3 delta = b.violation_free;
      if (b.body_a != kWorldBody) delta += b.jacobian_a * dq[b.body_a];
      if (b.body_b != kWorldBody) delta += b.jacobian_b * dq[b.body_b];
      // Violation with this block's own force removed.
      const Vec3 free = delta - c.w * b.force;
      // A soft contact's law sees its normal row's compliance grown (only that entry of W
      // enters the contact laws' normal force). Only contacts between two moving bodies are
      // soft.
      Mat3 w_soft;
      const Mat3* w_contact = &c.w;
      if (softness > 0.0 && b.point && b.body_a != kWorldBody && b.body_b != kWorldBody) {
        w_soft = c.w;
        w_soft(0, 0) *= 1.0 + softness;
        w_contact = &w_soft;
      }
      Vec3 f = Vec3::Zero();
      switch (b.law) {
        case ConstraintLaw::kBilateral:
          f = SolveBilateral(b.dim, c.w_inv, free);
          break;
        case ConstraintLaw::kUnilateral: f = SolveUnilateral(*w_contact, free); break;
        case ConstraintLaw::kBilateralFriction:
          f = SolveBilateralFriction(c.w, b.force, free, b.friction);
          break;
        case ConstraintLaw::kFrictionContact:
          f = SolveFrictionContact(*w_contact, c.wt_inv, b.force, free, b.friction);
          break;
        case ConstraintLaw::kRollingFriction:
          f = SolveRollingFriction(b.dim, c.w, c.w_inv, free,
                                   b.friction * ContactNormalForce(rows, b.normal_block));
          break;
        case ConstraintLaw::kDrive:
          f = SolveDrive(c.w(0, 0), b.compliance, free.x(), b.friction);
          break;
      }
      assert(f.allFinite());
      const Vec3 df = f - b.force;
      if (df.isZero()) continue;
      b.force = f;
      apply(static_cast<uint32_t>(i), df);
      residual = std::max(residual, (c.w * df).cwiseAbs().maxCoeff());
    }
    if (!forward && !direct_.empty()) residual = std::max(residual, direct_.Step(rows, dq, apply));
    result.iterations = it + 1;
    result.residual = residual;
    if (residual < options.tolerance) break;
    if (clock.Expired()) {
      result.budget_exhausted = it + 1 < options.max_iterations;
      break;
    }
  }
  return result;
}

}  // namespace ligature
