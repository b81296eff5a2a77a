#include "server/solver/tunable_lcp.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "server/solver/solve_clock.h"

namespace ligature {
namespace {

// The role of row d of a block under its law, before compliance is looked at.
bool IsNormalRow(ConstraintLaw law, int d) {
  return d == 0 && (law == ConstraintLaw::kUnilateral || law == ConstraintLaw::kFrictionContact);
}
bool IsFrictionRow(ConstraintLaw law, int d) {
  return (law == ConstraintLaw::kFrictionContact && d >= 1) ||
         (law == ConstraintLaw::kBilateralFriction && d == 2);
}

// |(x, y)|. Forces and displacements are far from overflow, so the plain root does (hypot's
// care for extreme exponents costs more than the rest of a friction check).
double Norm2(double x, double y) { return std::sqrt(x * x + y * y); }

}  // namespace

// Per-block C H^T, the row layout, each row's kind and its Jacobi scale. Rows that no body
// can move (zero diagonal of W) and friction rows without a coefficient become inert.
void TunableLcpSolver::Prepare(const ConstraintRows& rows,
                               std::span<const BodyCompliance> compliance) {
  const size_t num_rows = static_cast<size_t>(rows.Dimensions());
  block_.resize(rows.blocks.size());
  held_.assign(rows.blocks.size(), 0);
  kind_.resize(num_rows);
  active_.assign(num_rows, 0);
  free_.resize(num_rows);
  precond_.resize(num_rows);
  f_.assign(num_rows, 0.0);
  delta_.assign(num_rows, 0.0);
  z_.assign(num_rows, 0.0);
  p_.assign(num_rows, 0.0);
  q_.assign(num_rows, 0.0);
  body_.assign(compliance.size(), Vec6::Zero());
  body_f_.assign(compliance.size(), Vec6::Zero());
  compliance_ = compliance;

  uint32_t next = 0;
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    assert(b.dim >= 1 && b.dim <= 3);
    assert(b.law != ConstraintLaw::kUnilateral || b.dim == 1);
    assert(b.law != ConstraintLaw::kFrictionContact || b.dim == 3);
    assert(b.law != ConstraintLaw::kBilateralFriction || b.dim == 3);
    BlockCache& c = block_[bi];
    c.first_row = next;
    // Only W's diagonal is needed (the Jacobi scales): w_d = H_d C H_d^T on each side.
    Vec3 w = Vec3::Zero();
    for (int d = 0; d < b.dim; ++d) {
      if (b.body_a != kWorldBody) {
        assert(b.body_a < compliance.size());
        w[d] += compliance[b.body_a].Quadratic(b.jacobian_a.row(d).transpose());
      }
      if (b.body_b != kWorldBody) {
        assert(b.body_b < compliance.size());
        w[d] += compliance[b.body_b].Quadratic(b.jacobian_b.row(d).transpose());
      }
    }
    // The two tangent rows of a contact share one scale: the held friction law needs a
    // scalar w_t (its stick estimate f_t - delta_t / w_t then moves the force straight
    // against the slip, so its fixed point is Coulomb's), and CG scales both rows alike.
    const double tangent_scale = std::max(w[1], w[2]);
    c.has_friction = false;
    for (int d = 0; d < b.dim; ++d) {
      RowKind& kind = kind_[next + d];
      kind = IsNormalRow(b.law, d)     ? RowKind::kNormal
             : IsFrictionRow(b.law, d) ? RowKind::kFriction
                                       : RowKind::kBilateral;
      double scale = w[d];
      if (kind == RowKind::kFriction && b.law == ConstraintLaw::kFrictionContact) {
        scale = tangent_scale;
      }
      if (!(w[d] > 0.0) || (kind == RowKind::kFriction && !(b.friction > 0.0))) {
        kind = RowKind::kInert;
      }
      precond_[next + d] = kind == RowKind::kInert ? 0.0 : 1.0 / scale;
      if (kind == RowKind::kFriction) {
        c.has_friction = true;
        c.friction_scale = scale;
      }
      free_[next + d] = b.violation_free[d];
      assert(std::isfinite(free_[next + d]));
    }
    next += static_cast<uint32_t>(b.dim);
  }
}

// body = C H^T x: the generalized forces H^T x accumulated block by block onto the two
// bodies of each block, then each body's compliance applied once.
void TunableLcpSolver::Spread(const ConstraintRows& rows, const std::vector<double>& x,
                              std::vector<Vec6>* body) const {
  std::fill(body->begin(), body->end(), Vec6::Zero());
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    const uint32_t k = block_[bi].first_row;
    Vec3 xb = Vec3::Zero();
    for (int d = 0; d < b.dim; ++d) xb[d] = x[k + d];
    if (b.body_a != kWorldBody) (*body)[b.body_a] += b.jacobian_a.transpose() * xb;
    if (b.body_b != kWorldBody) (*body)[b.body_b] += b.jacobian_b.transpose() * xb;
  }
  for (size_t j = 0; j < body->size(); ++j) (*body)[j] = compliance_[j].Apply((*body)[j]);
}

// y = H body: each row reads the displacements of its two bodies.
void TunableLcpSolver::Gather(const ConstraintRows& rows, const std::vector<Vec6>& body,
                              std::vector<double>* y) const {
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    Vec3 yb = Vec3::Zero();
    if (b.body_a != kWorldBody) yb += b.jacobian_a * body[b.body_a];
    if (b.body_b != kWorldBody) yb += b.jacobian_b * body[b.body_b];
    for (int d = 0; d < b.dim; ++d) (*y)[block_[bi].first_row + d] = yb[d];
  }
}

// The violation the current forces leave, delta_free + H (C H^T f), from the per-body
// displacements body_f_ (kept equal to C H^T f), so that set changes and clamps never leave
// drift in delta from its incremental updates.
void TunableLcpSolver::RefreshViolation(const ConstraintRows& rows) {
  Gather(rows, body_f_, &delta_);
  for (size_t i = 0; i < delta_.size(); ++i) delta_[i] += free_[i];
}

// Adds to body_f_ the displacements of a change `df` of block bi's forces.
void TunableLcpSolver::SpreadBlockChange(const ConstraintBlock& b, const Vec3& df) {
  if (b.body_a != kWorldBody) {
    body_f_[b.body_a] += compliance_[b.body_a].Apply(b.jacobian_a.transpose() * df);
  }
  if (b.body_b != kWorldBody) {
    body_f_[b.body_b] += compliance_[b.body_b].Apply(b.jacobian_b.transpose() * df);
  }
}

// Block bi's forces as a 3-vector (rows past its dimension are 0).
Vec3 TunableLcpSolver::BlockForce(const ConstraintBlock& b, size_t bi) const {
  Vec3 f = Vec3::Zero();
  for (int d = 0; d < b.dim; ++d) f[d] = f_[block_[bi].first_row + d];
  return f;
}

// A fresh CG sequence: the residual of W_AA f_A = -delta_free_A is -delta_A (inactive rows
// carry no force), and the first direction is the preconditioned residual.
void TunableLcpSolver::RestartCg() {
  rz_ = 0.0;
  for (size_t i = 0; i < delta_.size(); ++i) {
    if (active_[i]) {
      z_[i] = -precond_[i] * delta_[i];
      rz_ += -delta_[i] * z_[i];
    } else {
      z_[i] = 0.0;
    }
    p_[i] = z_[i];
  }
}

// Largest |delta| over the rows CG currently drives to zero.
double TunableLcpSolver::EqualityResidual() const {
  double residual = 0.0;
  for (size_t i = 0; i < delta_.size(); ++i) {
    if (active_[i]) residual = std::max(residual, std::abs(delta_[i]));
  }
  return residual;
}

// The local Coulomb law of a held friction block, given everything else: the stick estimate
// g = f_t - delta_t / w_t (exact when the block's tangential compliance is isotropic) is
// kept if it lies inside the cone, else projected onto the cone's border. Returns how far
// the current force is from it, as the displacement w_t |target - f_t|. Contacts use rows
// 1-2 (bound mu f_n), bilateral-friction blocks row 2 (bound mu |(f0, f1)|).
double TunableLcpSolver::HeldFrictionTarget(const ConstraintBlock& b, size_t bi,
                                            double target[2], bool* sticks) const {
  const BlockCache& c = block_[bi];
  const uint32_t k = c.first_row;
  const double w = c.friction_scale;
  if (b.law == ConstraintLaw::kFrictionContact) {
    const double bound = b.friction * f_[k];
    double g[2];
    for (int t = 0; t < 2; ++t) {
      const uint32_t i = k + 1 + t;
      g[t] = kind_[i] == RowKind::kFriction ? f_[i] - delta_[i] / w : 0.0;
    }
    const double norm = Norm2(g[0], g[1]);
    *sticks = norm <= bound;
    const double scale = *sticks ? 1.0 : bound / norm;
    target[0] = scale * g[0];
    target[1] = scale * g[1];
    return w * Norm2(target[0] - f_[k + 1], target[1] - f_[k + 2]);
  }
  const double bound = b.friction * Norm2(f_[k], f_[k + 1]);
  const double g = f_[k + 2] - delta_[k + 2] / w;
  *sticks = std::abs(g) <= bound;
  target[0] = *sticks ? g : std::copysign(bound, g);
  target[1] = 0.0;
  return w * std::abs(target[0] - f_[k + 2]);
}

// Radial clamp: a contact's tangential force onto the disc |f_t| <= mu f_n, a
// bilateral-friction block's row 2 onto [-mu |(f0, f1)|, mu |(f0, f1)|].
bool TunableLcpSolver::ClampToCone(const ConstraintBlock& b, uint32_t k) {
  if (b.law == ConstraintLaw::kFrictionContact) {
    const double bound = b.friction * f_[k];
    const double tangential = Norm2(f_[k + 1], f_[k + 2]);
    if (!(tangential > bound)) return false;
    const double scale = bound > 0.0 ? bound / tangential : 0.0;
    f_[k + 1] *= scale;
    f_[k + 2] *= scale;
    return true;
  }
  const double bound = b.friction * Norm2(f_[k], f_[k + 1]);
  if (!(std::abs(f_[k + 2]) > bound)) return false;
  f_[k + 2] = std::copysign(bound, f_[k + 2]);
  return true;
}

// Friction of one block in play (a clamped contact, or a bilateral-friction block). While
// it sticks, its rows are equality rows; a force outside the cone is scaled back onto it
// and the block becomes held. A held block returns to sticking when its stick estimate lies
// inside the cone, and takes its Coulomb force when that differs from the current one by
// more than hold_threshold.
bool TunableLcpSolver::CheckFriction(const ConstraintBlock& b, size_t bi,
                                     double hold_threshold) {
  const uint32_t k = block_[bi].first_row;
  const bool contact = b.law == ConstraintLaw::kFrictionContact;
  const int first = contact ? 1 : 2;
  if (!held_[bi]) {
    if (!ClampToCone(b, k)) return false;
    held_[bi] = 1;
    for (int d = first; d < 3; ++d) active_[k + d] = 0;
    return true;
  }
  double target[2];
  bool sticks = false;
  const double distance = HeldFrictionTarget(b, bi, target, &sticks);
  if (sticks) {
    held_[bi] = 0;
    for (int d = first; d < 3; ++d) active_[k + d] = kind_[k + d] == RowKind::kFriction;
    return true;
  }
  if (!(distance > hold_threshold)) return false;
  if (contact) {
    f_[k + 1] = target[0];
    f_[k + 2] = target[1];
  } else {
    f_[k + 2] = target[0];
  }
  return true;
}

// The inequality check after a step. A clamped unilateral row that pulls is released (force
// 0, its friction with it); a vanishing row penetrating by more than the threshold is
// clamped (its friction rows join as sticking, from zero force). Then the friction of every
// block in play is checked against its cone.
bool TunableLcpSolver::CheckInequalities(const ConstraintRows& rows, double switch_threshold,
                                         double hold_threshold) {
  bool changed = false;
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    const uint32_t k = block_[bi].first_row;
    if (b.law == ConstraintLaw::kUnilateral || b.law == ConstraintLaw::kFrictionContact) {
      if (kind_[k] != RowKind::kNormal) continue;
      if (active_[k] && f_[k] < 0.0) {
        SpreadBlockChange(b, -BlockForce(b, bi));
        for (int d = 0; d < b.dim; ++d) {
          active_[k + d] = 0;
          f_[k + d] = 0.0;
        }
        held_[bi] = 0;
        changed = true;
        continue;
      }
      if (!active_[k] && delta_[k] < -switch_threshold) {
        for (int d = 0; d < b.dim; ++d) active_[k + d] = kind_[k + d] != RowKind::kInert;
        held_[bi] = 0;
        changed = true;
      }
      if (!active_[k]) continue;
    }
    if (!block_[bi].has_friction) continue;
    const Vec3 before = BlockForce(b, bi);
    if (CheckFriction(b, bi, hold_threshold)) {
      SpreadBlockChange(b, BlockForce(b, bi) - before);
      changed = true;
    }
  }
  return changed;
}

// Largest violation in metres. Equality rows (bilateral, clamped normals, sticking
// friction): |delta|. Vanishing normals: the penetration max(0, -delta). Held friction: the
// displacement its Coulomb force would still change, w_t |target - f_t|.
double TunableLcpSolver::Residual(const ConstraintRows& rows) const {
  double residual = 0.0;
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    const uint32_t k = block_[bi].first_row;
    for (int d = 0; d < b.dim; ++d) {
      const uint32_t i = k + d;
      if (active_[i]) {
        residual = std::max(residual, std::abs(delta_[i]));
      } else if (kind_[i] == RowKind::kNormal) {
        residual = std::max(residual, -delta_[i]);
      }
    }
    if (held_[bi]) {
      double target[2];
      bool sticks = false;
      residual = std::max(residual, HeldFrictionTarget(b, bi, target, &sticks));
    }
  }
  return residual;
}

SolveResult TunableLcpSolver::Solve(ConstraintRows& rows,
                                    std::span<const BodyCompliance> compliance,
                                    const SolverOptions& options,
                                    std::vector<Vec6>* displacements) {
  const SolveClock clock(options.time_budget_us);
  std::vector<Vec6>& dq = *displacements;
  dq.assign(compliance.size(), Vec6::Zero());
  SolveResult result;
  if (rows.blocks.empty()) return result;
  Prepare(rows, compliance);

  // Initial forces and sets: the previous forces when warm starting (a unilateral row that
  // pushed is clamped, its friction active), zero otherwise. Inert rows carry nothing.
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    const ConstraintBlock& b = rows.blocks[bi];
    const uint32_t k = block_[bi].first_row;
    for (int d = 0; d < b.dim; ++d) {
      const uint32_t i = k + d;
      const double warm = options.warm_start ? b.force[d] : 0.0;
      assert(std::isfinite(warm));
      switch (kind_[i]) {
        case RowKind::kBilateral:
          active_[i] = 1;
          break;
        case RowKind::kNormal:
          active_[i] = warm > 0.0;
          break;
        case RowKind::kFriction:
          active_[i] = b.law == ConstraintLaw::kBilateralFriction || active_[k];
          break;
        case RowKind::kInert:
          active_[i] = 0;
          break;
      }
      f_[i] = active_[i] ? warm : 0.0;
    }
    // Warm friction that was on its cone (sliding last tick) starts held.
    if (block_[bi].has_friction && (b.law == ConstraintLaw::kBilateralFriction || active_[k])) {
      const bool contact = b.law == ConstraintLaw::kFrictionContact;
      const double bound =
          b.friction * (contact ? f_[k] : Norm2(f_[k], f_[k + 1]));
      const double tangential =
          contact ? Norm2(f_[k + 1], f_[k + 2]) : std::abs(f_[k + 2]);
      if (bound > 0.0 && tangential >= (1.0 - 1e-9) * bound) {
        held_[bi] = 1;
        for (int d = contact ? 1 : 2; d < 3; ++d) active_[k + d] = 0;
      }
    }
  }
  // Vanishing rows that already penetrate are clamped (without warm start: every row with
  // delta_free < 0) and warm friction is brought into the cone before the first step.
  // From zero forces the displacements are zero and delta is delta_free.
  bool any_force = false;
  for (const double f : f_) any_force |= f != 0.0;
  if (any_force) Spread(rows, f_, &body_f_);
  RefreshViolation(rows);
  if (CheckInequalities(rows, 0.0, std::max(0.5 * options.tolerance, EqualityResidual()))) {
    RefreshViolation(rows);
  }
  RestartCg();
  result.residual = Residual(rows);

  // One CG step on the active rows, then the inequality check; any change restarts CG from
  // the current forces. Stops on convergence, at the iteration cap or when the budget is
  // spent (after the step during which it ran out). A vanishing row is clamped only when it
  // penetrates by more than half the tolerance, so that round-off cannot cycle a row that
  // just touches between the sets.
  const double switch_threshold = 0.5 * options.tolerance;
  int it = 0;
  while (result.residual >= options.tolerance && it < options.max_iterations) {
    Spread(rows, p_, &body_);
    Gather(rows, body_, &q_);
    double pq = 0.0;
    for (size_t i = 0; i < p_.size(); ++i) pq += p_[i] * q_[i];
    const bool can_step = pq > 0.0 && rz_ > 0.0;
    if (can_step) {
      const double alpha = rz_ / pq;
      assert(std::isfinite(alpha));
      double rz_next = 0.0;
      for (size_t j = 0; j < body_f_.size(); ++j) body_f_[j] += alpha * body_[j];
      for (size_t i = 0; i < f_.size(); ++i) {
        f_[i] += alpha * p_[i];
        delta_[i] += alpha * q_[i];
        if (active_[i]) {
          z_[i] = -precond_[i] * delta_[i];
          rz_next += -delta_[i] * z_[i];
        }
      }
      const double beta = rz_next / rz_;
      for (size_t i = 0; i < p_.size(); ++i) {
        if (active_[i]) p_[i] = z_[i] + beta * p_[i];
      }
      rz_ = rz_next;
    }
    ++it;
    // Held friction is refreshed only when that matters more than what CG still has to do.
    const bool changed = CheckInequalities(rows, switch_threshold,
                                           std::max(switch_threshold, EqualityResidual()));
    if (changed) {
      RefreshViolation(rows);
      RestartCg();
    }
    result.residual = Residual(rows);
    // Nothing left to do on the active rows and nothing changed: further steps are idle.
    if (!can_step && !changed) break;
    if (result.residual < options.tolerance) break;
    if (clock.Expired()) {
      result.budget_exhausted = it < options.max_iterations;
      break;
    }
  }
  result.iterations = it;

  // Forces out, and the displacements of exactly these forces. A held friction force may
  // lag its normal force by less than the tolerance; it is put back onto the cone so that
  // every output force lies inside its cone.
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    ConstraintBlock& b = rows.blocks[bi];
    const uint32_t k = block_[bi].first_row;
    if (block_[bi].has_friction) {
      const Vec3 before = BlockForce(b, bi);
      if (ClampToCone(b, k)) SpreadBlockChange(b, BlockForce(b, bi) - before);
    }
    b.force.setZero();
    for (int d = 0; d < b.dim; ++d) b.force[d] = f_[k + d];
    assert(b.force.allFinite());
  }
  std::copy(body_f_.begin(), body_f_.end(), dq.begin());
  return result;
}

}  // namespace ligature
