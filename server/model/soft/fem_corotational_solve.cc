// Solving a corotational step's system: directly, or by conjugate gradients preconditioned
// with the rest system's factorization; and the response operator that compliance queries
// and contact forces go through.

#include <cholmod.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "server/math/block_ldlt.h"
#include "server/model/soft/fem_corotational.h"

namespace ligature {

// A0's factorization: CHOLMOD's simplicial LDL^T on an ordering of the vertices (each
// vertex's three unknowns kept together, in order), so that L is made of 3x3 blocks and is
// solved with as BlockLdlt, several times faster than a scalar solve. The simplicial
// kernels use no BLAS, so the same input gives the same bits on every processor.
class RestFactorization {
 public:
  RestFactorization() {
    cholmod_start(&common_);
    common_.print = 0;  // failures are reported through Factorize's result
    common_.nmethods = 1;
    common_.method[0].ordering = CHOLMOD_GIVEN;
    common_.postorder = false;
    common_.supernodal = CHOLMOD_SIMPLICIAL;
    common_.final_asis = true;
  }
  ~RestFactorization() {
    cholmod_free_factor(&factor_, &common_);
    cholmod_finish(&common_);
  }
  RestFactorization(const RestFactorization&) = delete;
  RestFactorization& operator=(const RestFactorization&) = delete;

  // False when A is not positive definite or CHOLMOD fails.
  bool Factorize(const Eigen::SparseMatrix<double>& a, uint64_t pattern, double h) {
    pattern_ = pattern;
    h_ = h;
    assert(a.isCompressed() && a.rows() == a.cols() && a.rows() % 3 == 0);
    cholmod_sparse view{};
    view.nrow = view.ncol = a.rows();
    view.nzmax = a.nonZeros();
    view.p = const_cast<int*>(a.outerIndexPtr());
    view.i = const_cast<int*>(a.innerIndexPtr());
    view.x = const_cast<double*>(a.valuePtr());
    view.stype = -1;  // the lower triangle is read
    view.itype = CHOLMOD_INT;
    view.xtype = CHOLMOD_REAL;
    view.dtype = CHOLMOD_DOUBLE;
    view.sorted = true;
    view.packed = true;
    const std::vector<int> order = VertexOrder(a);
    if (order.empty()) return false;
    factor_ = cholmod_analyze_p(&view, const_cast<int*>(order.data()), nullptr, 0, &common_);
    if (factor_ == nullptr || !cholmod_factorize(&view, factor_, &common_) ||
        common_.status != CHOLMOD_OK || factor_->minor != factor_->n) {
      return false;
    }
    const Columns l = ReadColumns();
    std::optional<BlockLdlt> blocks =
        BlockLdlt::FromScalar(l.start, l.below, l.rows, l.values, l.d, l.unknown);
    if (!blocks) return false;
    blocks_ = *std::move(blocks);
    return true;
  }

  // The factor's paths, over its columns (it must outlive them).
  std::unique_ptr<LdltPaths> Paths() const {
    Columns l = ReadColumns();
    std::vector<int> pivot(l.unknown.size());
    for (size_t j = 0; j < l.unknown.size(); ++j) pivot[l.unknown[j]] = static_cast<int>(j);
    return std::make_unique<LdltPaths>(std::move(l.start), std::move(l.below), l.rows, l.values,
                                       l.d, std::move(pivot));
  }

  const BlockLdlt& blocks() const { return blocks_; }
  // The model (pattern id) and step it factorizes the rest system of, and its vertices.
  uint64_t pattern() const { return pattern_; }
  double h() const { return h_; }
  int vertices() const { return blocks_.size() / 3; }

 private:
  // The factor's columns: column j of L holds D_j first, then its entries below the
  // diagonal; unknown[j] is the unknown of pivot j.
  struct Columns {
    std::vector<int> start, below, unknown;
    std::vector<double> d;
    const int* rows = nullptr;
    const double* values = nullptr;
  };
  Columns ReadColumns() const {
    const cholmod_factor& l = *factor_;
    assert(!l.is_super && !l.is_ll && l.itype == CHOLMOD_INT && l.xtype == CHOLMOD_REAL);
    const int n = static_cast<int>(l.n);
    const int* p = static_cast<const int*>(l.p);
    const int* count = static_cast<const int*>(l.nz);
    const int* perm = static_cast<const int*>(l.Perm);
    Columns out;
    out.rows = static_cast<const int*>(l.i);
    out.values = static_cast<const double*>(l.x);
    out.start.resize(n);
    out.below.resize(n);
    out.d.resize(n);
    out.unknown.assign(perm, perm + n);
    for (int j = 0; j < n; ++j) {
      out.start[j] = p[j] + 1;
      out.below[j] = count[j] - 1;
      out.d[j] = out.values[p[j]];
    }
    return out;
  }

  // The pivot order of the factor: an ordering of the graph of the vertices (two are joined
  // when A couples them), each vertex's unknowns then taken in order. Of approximate
  // minimum degree and METIS's nested dissection, the one whose factor has fewer entries:
  // nested dissection leaves a third fewer on the organ's meshes, minimum degree fewer on
  // small ones. Empty when both fail.
  std::vector<int> VertexOrder(const Eigen::SparseMatrix<double>& a) {
    const int vertices = static_cast<int>(a.rows() / 3);
    // The graph's lower triangle, a column per vertex, rows sorted.
    std::vector<std::vector<int>> below(vertices);
    for (int j = 0; j < a.cols(); ++j) {
      for (int e = a.outerIndexPtr()[j]; e < a.outerIndexPtr()[j + 1]; ++e) {
        const int i = a.innerIndexPtr()[e];
        if (i / 3 > j / 3) below[j / 3].push_back(i / 3);
      }
    }
    std::vector<int> p(vertices + 1, 0), rows;
    for (int v = 0; v < vertices; ++v) {
      std::sort(below[v].begin(), below[v].end());
      below[v].erase(std::unique(below[v].begin(), below[v].end()), below[v].end());
      rows.insert(rows.end(), below[v].begin(), below[v].end());
      p[v + 1] = static_cast<int>(rows.size());
    }
    cholmod_sparse graph{};
    graph.nrow = graph.ncol = vertices;
    graph.nzmax = rows.size();
    graph.p = p.data();
    graph.i = rows.data();
    graph.stype = -1;
    graph.itype = CHOLMOD_INT;
    graph.xtype = CHOLMOD_PATTERN;
    graph.dtype = CHOLMOD_DOUBLE;
    graph.sorted = true;
    graph.packed = true;
    std::vector<int> amd(vertices), metis(vertices);
    const bool has_amd = cholmod_amd(&graph, nullptr, 0, amd.data(), &common_);
    bool has_metis = false;
    {
      // METIS seeds a process-wide random state at the start of each call: one call at a
      // time gives the same order on every thread and run.
      static std::mutex metis_mutex;
      std::lock_guard<std::mutex> lock(metis_mutex);
      has_metis = cholmod_metis(&graph, nullptr, 0, false, metis.data(), &common_);
    }
    const double amd_fill = has_amd ? FillOf(&graph, amd) : -1.0;
    const double metis_fill = has_metis ? FillOf(&graph, metis) : -1.0;
    if (amd_fill < 0.0 && metis_fill < 0.0) return {};
    const std::vector<int>& vertex_order =
        metis_fill >= 0.0 && (amd_fill < 0.0 || metis_fill < amd_fill) ? metis : amd;
    std::vector<int> order(3 * vertices);
    for (int k = 0; k < vertices; ++k) {
      for (int c = 0; c < 3; ++c) order[3 * k + c] = 3 * vertex_order[k] + c;
    }
    return order;
  }

  // The entries of the factor of `graph` in the pivot order `order` (its symbolic
  // analysis), or -1 when the analysis fails.
  double FillOf(cholmod_sparse* graph, std::vector<int>& order) {
    cholmod_factor* symbolic = cholmod_analyze_p(graph, order.data(), nullptr, 0, &common_);
    if (symbolic == nullptr) return -1.0;
    const double fill = common_.lnz;
    cholmod_free_factor(&symbolic, &common_);
    return fill;
  }

  cholmod_common common_;
  cholmod_factor* factor_ = nullptr;
  BlockLdlt blocks_;
  uint64_t pattern_ = 0;
  double h_ = 0.0;
};

CorotationalSystem::CorotationalSystem(CorotationalSolve method) : method_(method) {}
CorotationalSystem::~CorotationalSystem() = default;

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

Eigen::SparseMatrix<double> CorotationalModel::RestMatrix(double h) const {
  Eigen::SparseMatrix<double> rest = pattern_;
  FillMatrix({}, 1.0 + h * material_.mass_damping, h * material_.stiffness_damping + h * h,
             rest.valuePtr());
  return rest;
}

std::shared_ptr<const RestFactorization> CorotationalModel::FactorizeRest(double h) const {
  const Eigen::SparseMatrix<double> rest = RestMatrix(h);
  auto factor = std::make_shared<RestFactorization>();
  if (!factor->Factorize(rest, pattern_id_, h)) return nullptr;
  return factor;
}

absl::Status CorotationalModel::PrepareRestSystem(double h, CorotationalSystem* system) const {
  CorotationalSystem& sys = *system;
  if (sys.rest_ && sys.rest_for_ == pattern_id_ && sys.rest_->h() == h) return absl::OkStatus();
  // A factorization given to the system (UseRest) serves while it is for this step and
  // its map fits: this model's own, or a mesh's this one was cut from.
  const bool own = sys.to_base_.empty() && sys.rest_ && sys.rest_->pattern() == pattern_id_;
  const bool mapped =
      !sys.to_base_.empty() && sys.rest_ &&
      static_cast<int>(sys.to_base_.size()) == vertex_count() &&
      std::ranges::all_of(sys.to_base_, [&](int b) { return b >= 0 && b < sys.rest_->vertices(); });
  if ((own || mapped) && sys.rest_->h() == h) {
    if (mapped) sys.split_ = SplitOf(h, sys.to_base_);
    sys.rest_for_ = pattern_id_;
    return absl::OkStatus();
  }
  std::shared_ptr<const RestFactorization> rest = FactorizeRest(h);
  if (rest == nullptr) {
    return absl::InternalError("corotational step: factorization of the rest system failed");
  }
  sys.UseRest(std::move(rest), {});
  sys.rest_for_ = pattern_id_;
  return absl::OkStatus();
}

// J for the vertices `to_base` splits: per group g of free vertices sharing a base vertex,
// J_uv = sigma_g (delta_uv / m_u - 1 / M_g) I, M_g the group's mass and sigma_g its mass over
// the sum of its diagonal means of the rest system (so J is about A0^-1 on the parting
// mode). J gives no momentum to any force (sum_u m_u J_uv = 0) and is positive on every
// mode but the group's common motion, which S^T A0^-1 S answers.
CorotationalSystem::Split CorotationalModel::SplitOf(double h, std::span<const int> to_base) const {
  const Eigen::SparseMatrix<double> rest = RestMatrix(h);
  // Per base vertex: its free vertices' count, mass and summed diagonal means.
  const int bases = *std::ranges::max_element(to_base) + 1;
  std::vector<int> count(bases, 0);
  std::vector<double> mass(bases, 0.0), diagonal(bases, 0.0);
  for (size_t v = 0; v < to_base.size(); ++v) {
    if (rest_.fixed[v]) continue;
    const std::array<int, 3>& at = diagonal_offset_[v];
    ++count[to_base[v]];
    mass[to_base[v]] += rest_.mass[v];
    diagonal[to_base[v]] +=
        (rest.valuePtr()[at[0]] + rest.valuePtr()[at[1] + 1] + rest.valuePtr()[at[2] + 2]) / 3.0;
  }
  CorotationalSystem::Split split;
  split.own.assign(to_base.size(), 0.0);
  split.shared.assign(to_base.size(), 0.0);
  for (size_t v = 0; v < to_base.size(); ++v) {
    const int b = to_base[v];
    if (rest_.fixed[v] || count[b] < 2 || !(rest_.mass[v] > 0.0)) continue;
    const double sigma = mass[b] / diagonal[b];
    split.own[v] = sigma / rest_.mass[v];
    split.shared[v] = sigma / mass[b];
  }
  return split;
}

void CorotationalSystem::UseRest(std::shared_ptr<const RestFactorization> rest,
                                 std::vector<int> to_base) {
  rest_ = std::move(rest);
  to_base_ = std::move(to_base);
  split_ = {};
  rest_for_ = 0;
  ForgetColumns();
}

int CorotationalSystem::BaseOf(int v) const { return to_base_.empty() ? v : to_base_[v]; }

int CorotationalSystem::ColumnKey(int v) const { return direct_ ? v : BaseOf(v); }

void CorotationalSystem::WarmColumns(std::span<const std::vector<int>> sets,
                                     std::vector<char> fixed) {
  direct_ = false;
  fixed_ = std::move(fixed);
  rhs_.setZero(3 * static_cast<Eigen::Index>(fixed_.size()));
  for (const std::vector<int>& set : sets) (void)InverseBetween(set);
}

std::vector<std::vector<int>> CorotationalSystem::CachedSets() const {
  std::vector<std::vector<int>> sets;
  for (const CachedBlocks& set : between_) sets.push_back(set.vertices);
  return sets;
}

template <typename System>
void CorotationalSystem::Carry(System&& before) {
  if (before.rest_ != rest_ || before.direct_ || rest_ == nullptr) return;
  direct_ = false;  // the columns are A0's
  columns_ = std::forward<System>(before).columns_;
  between_ = std::forward<System>(before).between_;
  // The turned blocks carry J, which the cut may have changed.
  for (CachedBlocks& set : between_) set.turned.resize(0, 0);
  steps_ = before.steps_;
}

void CorotationalSystem::CarryColumns(const CorotationalSystem& before) { Carry(before); }

void CorotationalSystem::CarryColumns(CorotationalSystem&& before) { Carry(std::move(before)); }

// P^-1 b = W S^T A0^-1 S W^T b + J b: b turned into each vertex's frame (one for all, or
// one per vertex), summed into the vertex of the factorized mesh it was split from (S),
// solved, and each vertex given its base vertex's answer turned back; plus J on the modes
// where split vertices part, which S cannot see (see CorotationalModel::SplitOf). Without a
// map, S and J are the identity and zero.
Eigen::VectorXd CorotationalSystem::MappedSolve(std::span<const Mat3> frames,
                                                const Eigen::VectorXd& b) const {
  const BlockLdlt& blocks = rest_->blocks();
  Eigen::VectorXd x(b.size());
  if (to_base_.empty()) {
    blocks.Solve(frames, b.data(), x.data());
    return x;
  }
  const auto frame = [&](size_t v) -> const Mat3& { return frames[frames.size() == 1 ? 0 : v]; };
  Eigen::VectorXd summed = Eigen::VectorXd::Zero(blocks.size());
  for (size_t v = 0; v < to_base_.size(); ++v) {
    summed.segment<3>(3 * to_base_[v]) += frame(v).transpose() * b.segment<3>(3 * v);
  }
  Eigen::VectorXd y(blocks.size());
  blocks.Solve({}, summed.data(), y.data());
  // J b: each split vertex's own share, less its group's shared one (J commutes with the
  // turns, being a scalar per pair of vertices).
  for (size_t v = 0; v < to_base_.size(); ++v) {
    x.segment<3>(3 * v) = frame(v) * y.segment<3>(3 * to_base_[v]);
  }
  if (split_.shared.empty()) return x;
  Eigen::VectorXd group = Eigen::VectorXd::Zero(blocks.size());
  for (size_t v = 0; v < to_base_.size(); ++v) {
    if (split_.shared[v] > 0.0) group.segment<3>(3 * to_base_[v]) += b.segment<3>(3 * v);
  }
  for (size_t v = 0; v < to_base_.size(); ++v) {
    x.segment<3>(3 * v) +=
        split_.own[v] * b.segment<3>(3 * v) - split_.shared[v] * group.segment<3>(3 * to_base_[v]);
  }
  return x;
}

Eigen::VectorXd CorotationalSystem::ApplyPreconditioner(const Eigen::VectorXd& b) const {
  return MappedSolve(std::span<const Mat3>(&frame_, 1), b);
}

// W A0^-1 W^T b, W the block-diagonal of the vertices' rotations (W is orthogonal, so this is
// the inverse of W A0 W^T).
Eigen::VectorXd CorotationalSystem::ApplyWarpedPreconditioner(const Eigen::VectorXd& b) const {
  return MappedSolve(vertex_frames_, b);
}

// Conjugate gradients preconditioned by W A0 W^T, until |r| <= kTolerance |rhs|, from the
// guess when it has one entry per vertex, else from dv = 0. A body's step changes little
// from tick to tick, so the last one's dv leaves a residual a few orders below |rhs|, and a
// body at rest meets the tolerance in an iteration or none. A converged step keeps the
// cached columns of A0^-1 (unless the last step's were of A^-1).
bool CorotationalSystem::SolveIteratively(std::span<const Vec3> guess, double translation_mass) {
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
  // The residual's net impulse, which a uniform velocity change takes up exactly: K does
  // not resist a translation, so A moves it by (1 + h alpha) M alone.
  if (translation_mass > 0.0) {
    Vec3 net = Vec3::Zero();
    for (Eigen::Index v = 0; v < r.size() / 3; ++v) net += r.segment<3>(3 * v);
    const Vec3 shift = net / translation_mass;
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) x.segment<3>(3 * v) += shift;
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
  if (paths_ == nullptr) paths_ = direct_ ? LdltPaths::Of(solver_) : rest_->Paths();
  const int key = ColumnKey(v);
  auto [at, added] = columns_.try_emplace(key);
  if (added) {
    const int unknowns[3] = {3 * key, 3 * key + 1, 3 * key + 2};
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
  if (direct_) return block;
  return frame_ * block * frame_.transpose() + SplitBlock(u, v);
}

Mat3 CorotationalSystem::SplitBlock(int u, int v) const {
  if (split_.shared.empty() || !(split_.shared[u] > 0.0) || !(split_.shared[v] > 0.0) ||
      BaseOf(u) != BaseOf(v)) {
    return Mat3::Zero();
  }
  return ((u == v ? split_.own[u] : 0.0) - split_.shared[u]) * Mat3::Identity();
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
    return std::ranges::any_of(
        set.vertices, [&](int v) { return !fixed_[v] && !columns_.contains(ColumnKey(v)); });
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
      if (auto at = columns_.find(ColumnKey(v)); at != columns_.end()) at->second.used = steps_;
    }
  }
  set = std::prev(between_.end());
  // The blocks turned into the body's frame are kept with the set while the frame stays (a
  // body at rest keeps its frame bit for bit: see CorotationalModel::Assemble).
  const Mat3 f = direct_ ? Mat3::Identity() : frame_;
  if (set->turned.size() == 0 || set->turned_frame != f) {
    set->turned = Turned(set->blocks, m, f);
    // J between the set's split vertices (few: those along a recent cut).
    std::vector<int> split;
    for (int i = 0; i < m && !direct_ && !split_.shared.empty(); ++i) {
      if (split_.shared[vertices[i]] > 0.0) split.push_back(i);
    }
    for (const int i : split) {
      for (const int j : split) {
        set->turned.block<3, 3>(3 * i, 3 * j) += SplitBlock(vertices[i], vertices[j]);
      }
    }
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
