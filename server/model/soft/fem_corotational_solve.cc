// Solving a corotational step's system: directly, or by conjugate gradients preconditioned
// with the rest system's factorization; and the response operator that compliance queries
// and contact forces go through.

#include <Eigen/CholmodSupport>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "server/model/soft/fem_corotational.h"

namespace ligature {

// A0's factorization: CHOLMOD's simplicial LDL^T on a METIS ordering, whose solves (the
// cost of every iteration) are several times faster than Eigen's SimplicialLDLT on its AMD
// ordering. The simplicial kernels use no BLAS, so the same input gives the same bits on
// every processor.
class RestFactorization {
 public:
  RestFactorization() {
    cholmod_common& common = solver.cholmod();
    common.nmethods = 1;
    common.method[0].ordering = CHOLMOD_METIS;
    common.print = 0;  // failures are reported through info()
  }
  // The factor's paths: column j of L holds D_j first, then its entries below the
  // diagonal; Perm[k] is the unknown of pivot k.
  std::unique_ptr<LdltPaths> Paths() const {
    const cholmod_factor& l = *solver.factor();
    assert(!l.is_super && !l.is_ll && l.itype == CHOLMOD_INT && l.xtype == CHOLMOD_REAL);
    const int n = static_cast<int>(l.n);
    const int* p = static_cast<const int*>(l.p);
    const int* count = static_cast<const int*>(l.nz);
    const int* perm = static_cast<const int*>(l.Perm);
    const double* x = static_cast<const double*>(l.x);
    std::vector<int> start(n), below(n), pivot(n);
    std::vector<double> d(n);
    for (int j = 0; j < n; ++j) {
      start[j] = p[j] + 1;
      below[j] = count[j] - 1;
      d[j] = x[p[j]];
      pivot[perm[j]] = j;
    }
    return std::make_unique<LdltPaths>(std::move(start), std::move(below),
                                       static_cast<const int*>(l.i), x, d, std::move(pivot));
  }

  // Eigen's wrapper, with its factor in view.
  struct Solver : Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>> {
    const cholmod_factor* factor() const { return m_cholmodFactor; }
  };
  Solver solver;
};

CorotationalSystem::CorotationalSystem(CorotationalSolve method) : method_(method) {}
CorotationalSystem::~CorotationalSystem() = default;

namespace {

// Each vertex's three entries of b turned by r (b has three rows per vertex).
Eigen::VectorXd TurnEach(const Mat3& r, const Eigen::VectorXd& b) {
  Eigen::VectorXd out(b.size());
  for (Eigen::Index v = 0; v < b.size() / 3; ++v) out.segment<3>(3 * v) = r * b.segment<3>(3 * v);
  return out;
}

}  // namespace

bool CorotationalSystem::SolveDirectly() {
  // The symbolic analysis, once per pattern.
  if (!analyzed_) {
    solver_.analyzePattern(matrix_);
    analyzed_ = true;
  }
  solver_.factorize(matrix_);
  direct_ = true;
  iterations_ = 0;
  ForgetColumns();
  if (solver_.info() != Eigen::Success) return false;
  dv_ = solver_.solve(rhs_);
  return solver_.info() == Eigen::Success && dv_.allFinite();
}

bool CorotationalSystem::FactorizeRest(const SparseMatrix& rest, uint64_t id, double h) {
  rest_solver_ = std::make_unique<RestFactorization>();
  rest_solver_->solver.compute(rest);
  ForgetColumns();
  const bool ok = rest_solver_->solver.info() == Eigen::Success;
  rest_id_ = ok ? id : 0;
  rest_h_ = h;
  return ok;
}

Eigen::VectorXd CorotationalSystem::ApplyPreconditioner(const Eigen::VectorXd& b) const {
  return TurnEach(frame_, rest_solver_->solver.solve(TurnEach(frame_.transpose(), b)));
}

// W A0^-1 W^T b, W the block-diagonal of the vertices' rotations (W is orthogonal, so this is
// the inverse of W A0 W^T).
Eigen::VectorXd CorotationalSystem::ApplyWarpedPreconditioner(const Eigen::VectorXd& b) const {
  const Eigen::Index n = b.size() / 3;
  Eigen::VectorXd turned(b.size());
  for (Eigen::Index v = 0; v < n; ++v) {
    turned.segment<3>(3 * v) = vertex_frames_[v].transpose() * b.segment<3>(3 * v);
  }
  Eigen::VectorXd x = rest_solver_->solver.solve(turned);
  for (Eigen::Index v = 0; v < n; ++v) {
    x.segment<3>(3 * v) = vertex_frames_[v] * Vec3(x.segment<3>(3 * v));
  }
  return x;
}

// Conjugate gradients preconditioned by W A0 W^T, until |r| <= kTolerance |rhs|, from the
// guess when it has one entry per vertex, else from dv = 0. A body's step changes little
// from tick to tick, so the last one's dv leaves a residual a few orders below |rhs|, and a
// body at rest meets the tolerance in an iteration or none. A converged step keeps the
// cached columns of A0^-1 (unless the last step's were of A^-1).
bool CorotationalSystem::SolveIteratively(std::span<const Vec3> guess) {
  const double target = kTolerance * rhs_.norm();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(rhs_.size());
  Eigen::VectorXd r = rhs_;
  if (3 * static_cast<Eigen::Index>(guess.size()) == rhs_.size()) {
    for (size_t v = 0; v < guess.size(); ++v) x.segment<3>(3 * v) = guess[v];
    r -= matrix_ * x;
  }
  Eigen::VectorXd z, p;
  double rz = 0.0;
  int it = 0;
  while (r.norm() > target) {
    if (it == kMaxIterations || !std::isfinite(rz)) return false;
    // The first direction is the preconditioned residual; each next one is made
    // A-conjugate to the last.
    z = ApplyWarpedPreconditioner(r);
    const double next = r.dot(z);
    p = it == 0 ? z : Eigen::VectorXd(z + (next / rz) * p);
    rz = next;
    const Eigen::VectorXd ap = matrix_ * p;
    const double step = rz / p.dot(ap);
    x += step * p;
    r -= step * ap;
    ++it;
  }
  if (!x.allFinite()) return false;
  if (direct_) ForgetColumns();
  ++steps_;
  AgeColumns();
  dv_ = std::move(x);
  direct_ = false;
  iterations_ = it;
  return true;
}

Eigen::VectorXd CorotationalSystem::Solve(const Eigen::VectorXd& b) const {
  return direct_ ? Eigen::VectorXd(solver_.solve(b)) : ApplyPreconditioner(b);
}

const CorotationalSystem::CachedColumns& CorotationalSystem::Columns(int v) {
  if (paths_ == nullptr) paths_ = direct_ ? LdltPaths::Of(solver_) : rest_solver_->Paths();
  auto [at, added] = columns_.try_emplace(v);
  if (added) {
    const int unknowns[3] = {3 * v, 3 * v + 1, 3 * v + 2};
    paths_->Columns(unknowns, &at->second.unknowns);
  }
  at->second.used = steps_;
  return at->second;
}

Mat3 CorotationalSystem::Between(const CachedColumns& a, const CachedColumns& b) {
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> block;
  LdltPaths::Dot(a.unknowns, b.unknowns, block.data());
  return block;
}

// Columns are kept in the solver's own frame (A0's, when preconditioned), and the blocks
// turned into the body's frame on the way out: (G A0^-1 G^T)_uv = R (A0^-1)_uv R^T. A held
// vertex does not move: its blocks are zero.
Mat3 CorotationalSystem::InverseBlock(int u, int v) {
  if (fixed_[u] || fixed_[v]) return Mat3::Zero();
  const Mat3 block = Between(Columns(u), Columns(v));
  return direct_ ? block : Mat3(frame_ * block * frame_.transpose());
}

void CorotationalSystem::ForgetColumns() {
  paths_.reset();
  columns_.clear();
  between_.clear();
}

void CorotationalSystem::AgeColumns() {
  const auto old = [&](const auto& entry) { return steps_ - entry.second.used > kColumnLifetime; };
  if (std::ranges::none_of(columns_, old)) return;
  std::erase_if(columns_, old);
  std::erase_if(between_, [&](const CachedBlocks& set) {
    return std::ranges::any_of(set.vertices,
                               [&](int v) { return !fixed_[v] && !columns_.contains(v); });
  });
}

const Eigen::MatrixXd& CorotationalSystem::InverseBetween(std::span<const int> vertices) {
  const int m = static_cast<int>(vertices.size());
  // A cached set holds the blocks on and above the diagonal: the rest are their transposes.
  // Its vertices' columns are marked used, so they outlive the set.
  auto set = std::ranges::find_if(
      between_, [&](const CachedBlocks& c) { return std::ranges::equal(c.vertices, vertices); });
  if (set == between_.end()) {
    // Blocks between vertices of the newest set are taken from it: a contact set changes
    // by a few vertices from tick to tick.
    std::vector<int> before(rhs_.size() / 3, -1);
    const CachedBlocks* newest = between_.empty() ? nullptr : &between_.back();
    if (newest != nullptr) {
      for (size_t k = 0; k < newest->vertices.size(); ++k) before[newest->vertices[k]] = k;
    }
    Eigen::MatrixXd blocks = Eigen::MatrixXd::Zero(3 * m, 3 * m);
    for (int j = 0; j < m; ++j) {
      if (fixed_[vertices[j]]) continue;
      const CachedColumns& column = Columns(vertices[j]);
      for (int i = 0; i <= j; ++i) {
        if (fixed_[vertices[i]]) continue;
        const int bi = before[vertices[i]], bj = before[vertices[j]];
        Mat3 block;
        if (bi >= 0 && bj >= 0) {
          block = bi <= bj ? Mat3(newest->blocks.block<3, 3>(3 * bi, 3 * bj))
                           : Mat3(newest->blocks.block<3, 3>(3 * bj, 3 * bi).transpose());
        } else {
          block = Between(Columns(vertices[i]), column);
        }
        blocks.block<3, 3>(3 * i, 3 * j) = block;
      }
    }
    if (between_.size() == kBlockSets) between_.erase(between_.begin());
    CachedBlocks& added = between_.emplace_back();
    added.vertices.assign(vertices.begin(), vertices.end());
    added.blocks = std::move(blocks);
  } else {
    // The set goes last, so the sets asked for every tick are the last to be dropped.
    std::rotate(set, std::next(set), between_.end());
    for (const int v : vertices) {
      if (auto at = columns_.find(v); at != columns_.end()) at->second.used = steps_;
    }
  }
  set = std::prev(between_.end());
  // The blocks turned into the body's frame are kept with the set while the frame stays (a
  // body at rest keeps its frame bit for bit: see CorotationalModel::Assemble).
  const Mat3 f = direct_ ? Mat3::Identity() : frame_;
  if (set->turned.size() == 0 || set->turned_frame != f) {
    set->turned = Turned(set->blocks, m, f);
    set->turned_frame = f;
  }
  return set->turned;
}

// Each block turned, F B F^T, once per pair and mirrored, so the result is exactly
// symmetric. Written on the entries (column-major, leading dimension 3 m): the loop that
// costs most when a contact set's frame moves.
Eigen::MatrixXd CorotationalSystem::Turned(const Eigen::MatrixXd& between, int m, const Mat3& f) {
  const Eigen::Index ld = 3 * m;
  Eigen::MatrixXd out(ld, ld);
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i <= j; ++i) {
      const double* b = between.data() + 3 * j * ld + 3 * i;
      // t = B F^T, then u = F t.
      double t[3][3], u[3][3];  // [row][column]
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
          t[r][c] = b[r] * f(c, 0) + b[ld + r] * f(c, 1) + b[2 * ld + r] * f(c, 2);
        }
      }
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
          u[r][c] = f(r, 0) * t[0][c] + f(r, 1) * t[1][c] + f(r, 2) * t[2][c];
        }
      }
      double* upper = out.data() + 3 * j * ld + 3 * i;
      double* lower = out.data() + 3 * i * ld + 3 * j;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
          const double v = i == j ? 0.5 * (u[r][c] + u[c][r]) : u[r][c];
          upper[c * ld + r] = v;
          lower[r * ld + c] = v;
        }
      }
    }
  }
  return out;
}

// A force f on a vertex over the step adds h f to the right-hand side, so h A^-1 (h f) to
// v and h times that to x.
Mat3 CorotationalSystem::Compliance(int vertex) { return h_ * h_ * InverseBlock(vertex, vertex); }

}  // namespace ligature
