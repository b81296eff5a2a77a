// Solving a corotational step's system: directly, or by conjugate gradients
// preconditioned with the rest system's factorization; and the response
// operator that compliance queries and contact forces go through.

#include <cassert>
#include <cmath>

#include "server/model/soft/fem_corotational.h"

namespace ligature {
namespace {

// Each vertex's three entries of b turned by r (b has three rows per vertex).
Eigen::VectorXd TurnEach(const Mat3 &r, const Eigen::VectorXd &b) {
  Eigen::VectorXd out(b.size());
  for (Eigen::Index v = 0; v < b.size() / 3; ++v)
    out.segment<3>(3 * v) = r * b.segment<3>(3 * v);
  return out;
}

} // namespace

bool CorotationalSystem::SolveDirectly() {
  solver_.factorize(matrix_);
  direct_ = true;
  iterations_ = 0;
  columns_.clear();
  if (solver_.info() != Eigen::Success)
    return false;
  dv_ = solver_.solve(rhs_);
  return solver_.info() == Eigen::Success && dv_.allFinite();
}

Eigen::VectorXd
CorotationalSystem::ApplyPreconditioner(const Eigen::VectorXd &b) const {
  return TurnEach(frame_, rest_solver_.solve(TurnEach(frame_.transpose(), b)));
}

// Preconditioned conjugate gradients from dv = 0, until |r| <= kTolerance
// |rhs|. A converged step keeps the cached columns of A0^-1 (unless the last
// step's were of A^-1).
bool CorotationalSystem::SolveIteratively() {
  const double target = kTolerance * rhs_.norm();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(rhs_.size());
  Eigen::VectorXd r = rhs_;
  Eigen::VectorXd z = ApplyPreconditioner(r);
  Eigen::VectorXd p = z;
  double rz = r.dot(z);
  int it = 0;
  while (r.norm() > target) {
    if (it == kMaxIterations || !std::isfinite(rz))
      return false;
    const Eigen::VectorXd ap = matrix_ * p;
    const double step = rz / p.dot(ap);
    x += step * p;
    r -= step * ap;
    z = ApplyPreconditioner(r);
    const double next = r.dot(z);
    p = z + (next / rz) * p;
    rz = next;
    ++it;
  }
  if (!x.allFinite())
    return false;
  if (direct_)
    columns_.clear();
  dv_ = std::move(x);
  direct_ = false;
  iterations_ = it;
  return true;
}

Eigen::VectorXd CorotationalSystem::Solve(const Eigen::VectorXd &b) const {
  return direct_ ? Eigen::VectorXd(solver_.solve(b)) : ApplyPreconditioner(b);
}

// Columns are kept in the solver's own frame (A0's, when preconditioned), and
// the block turned into the body's frame on the way out: (G A0^-1 G^T)_uv = R
// (A0^-1)_uv R^T.
Mat3 CorotationalSystem::InverseBlock(int u, int v) {
  if (fixed_[u] || fixed_[v])
    return Mat3::Zero();
  auto [at, added] = columns_.try_emplace(v);
  if (added) {
    Eigen::Matrix<double, Eigen::Dynamic, 3> unit =
        Eigen::Matrix<double, Eigen::Dynamic, 3>::Zero(rhs_.size(), 3);
    unit.middleRows<3>(3 * v).setIdentity();
    at->second = direct_ ? solver_.solve(unit) : rest_solver_.solve(unit);
  }
  const Mat3 block = at->second.middleRows<3>(3 * u);
  return direct_ ? block : Mat3(frame_ * block * frame_.transpose());
}

// A force f on a vertex over the step adds h f to the right-hand side, so h
// A^-1 (h f) to v and h times that to x.
void CorotationalSystem::ResponseField(int vertex, const Vec3 &force,
                                       std::vector<Vec3> *displacement) const {
  const int n = static_cast<int>(rhs_.size() / 3);
  assert(vertex >= 0 && vertex < n);
  displacement->assign(n, Vec3::Zero());
  if (fixed_[vertex])
    return;
  Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * n);
  b.segment<3>(3 * vertex) = force;
  const Eigen::VectorXd x = Solve(b);
  for (int v = 0; v < n; ++v) {
    (*displacement)[v] =
        fixed_[v] ? Vec3::Zero() : Vec3(h_ * h_ * x.segment<3>(3 * v));
  }
}

Vec3 CorotationalSystem::Response(int vertex, const Vec3 &force) const {
  const int n = static_cast<int>(rhs_.size() / 3);
  assert(vertex >= 0 && vertex < n);
  if (fixed_[vertex])
    return Vec3::Zero();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * n);
  b.segment<3>(3 * vertex) = force;
  return h_ * h_ * Solve(b).segment<3>(3 * vertex);
}

Mat3 CorotationalSystem::Compliance(int vertex) {
  return h_ * h_ * InverseBlock(vertex, vertex);
}

} // namespace ligature
