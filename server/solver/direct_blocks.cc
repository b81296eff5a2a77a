#include "server/solver/direct_blocks.h"

#include <algorithm>
#include <cassert>
#include <optional>

namespace ligature {
namespace {

// A pivot below this share of its row's diagonal marks the row as redundant with the rows
// eliminated before it.
constexpr double kRedundantPivot = 1e-9;
// Added to each diagonal entry of W_gg, as a share of it.
constexpr double kDiagonalShare = 1e-12;
// Factorizations tried, each without the redundant block the one before found; when the
// last still has one, every block goes to the sweeps.
constexpr int kFactorRounds = 8;

// One side of a member block on a body: which member, which side.
struct BodySide {
  uint32_t body;
  uint32_t member;
  int side;
  bool operator<(const BodySide& o) const { return body < o.body; }
};

const BlockJacobian& SideJacobian(const ConstraintBlock& b, int side) {
  return side == 0 ? b.jacobian_a : b.jacobian_b;
}

}  // namespace

void DirectBlocks::Prepare(const ConstraintRows& rows, absl::FunctionRef<bool(uint32_t)> eligible,
                           Response response) {
  members_.clear();
  for (uint32_t i = 0; i < rows.blocks.size(); ++i) {
    if (eligible(i)) members_.push_back(i);
  }
  // Factor; leave a redundant block to the sweeps and factor again without it.
  for (int round = 0; !members_.empty(); ++round) {
    std::optional<uint32_t> redundant;
    if (Factor(rows, response, &redundant)) break;
    if (!redundant || round + 1 == kFactorRounds) {  // all go to the sweeps
      members_.clear();
      break;
    }
    std::erase(members_, *redundant);
  }
  member_.assign(rows.blocks.size(), 0);
  for (uint32_t m : members_) member_[m] = 1;
}

// Builds W_gg from the blocks that share a body (each pair of sides on one body adds
// J_p C J_q^T) and factors it. False when the factorization failed or a pivot vanished;
// `redundant` then holds the block of the smallest pivot.
bool DirectBlocks::Factor(const ConstraintRows& rows, Response response,
                          std::optional<uint32_t>* redundant) {
  offset_.resize(members_.size());
  int n = 0;
  std::vector<BodySide> sides;
  std::vector<PatternKey> key;
  key.reserve(members_.size());
  for (uint32_t m = 0; m < members_.size(); ++m) {
    const ConstraintBlock& b = rows.blocks[members_[m]];
    offset_[m] = n;
    n += b.dim;
    key.push_back({b.body_a, b.body_b, static_cast<uint32_t>(b.dim)});
    if (b.body_a != kWorldBody) sides.push_back({b.body_a, m, 0});
    if (b.body_b != kWorldBody) sides.push_back({b.body_b, m, 1});
  }
  std::stable_sort(sides.begin(), sides.end());
  // The entries in a fixed order, which only the members' bodies and sizes decide.
  const bool same_pattern = !slots_.empty() && key == pattern_;
  entries_.clear();
  values_.clear();
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(n);
  const auto add = [&](int row, int col, double value) {
    if (!same_pattern) entries_.emplace_back(row, col, 0.0);
    values_.push_back(value);
  };
  for (size_t first = 0; first < sides.size();) {
    size_t last = first;
    while (last < sides.size() && sides[last].body == sides[first].body) ++last;
    for (size_t p = first; p < last; ++p) {
      const ConstraintBlock& bp = rows.blocks[members_[sides[p].member]];
      const BlockJacobian& jp = SideJacobian(bp, sides[p].side);
      for (size_t q = first; q < last; ++q) {
        const ConstraintBlock& bq = rows.blocks[members_[sides[q].member]];
        const Mat3 w = jp * response(members_[sides[q].member], sides[q].side);
        const int row = offset_[sides[p].member];
        const int col = offset_[sides[q].member];
        for (int r = 0; r < bp.dim; ++r) {
          for (int c = 0; c < bq.dim; ++c) add(row + r, col + c, w(r, c));
          if (p == q) diagonal(row + r) += w(r, r);
        }
      }
    }
    first = last;
  }
  // A share of each diagonal far below the redundancy test keeps exactly repeated rows
  // from stopping the factorization: their pivots come out tiny and are found below.
  for (int k = 0; k < n; ++k) add(k, k, kDiagonalShare * diagonal(k));
  // A new pattern: W_gg's sparsity, where each entry lands in it, and the fill-reducing
  // ordering and elimination tree, all kept while the members' bodies stay the same (a
  // world's joints from tick to tick). The values are then summed in place, in the same
  // order whichever way, so that a factorization is the same bits either way.
  if (!same_pattern) {
    w_.resize(n, n);
    w_.setFromTriplets(entries_.begin(), entries_.end());
    slots_.resize(entries_.size());
    for (size_t t = 0; t < entries_.size(); ++t) {
      const int col = entries_[t].col();
      const int* begin = w_.innerIndexPtr() + w_.outerIndexPtr()[col];
      const int* end = w_.innerIndexPtr() + w_.outerIndexPtr()[col + 1];
      slots_[t] =
          static_cast<int>(std::lower_bound(begin, end, entries_[t].row()) - w_.innerIndexPtr());
    }
    factor_.analyzePattern(w_);
    pattern_ = std::move(key);
  }
  double* value = w_.valuePtr();
  std::fill(value, value + w_.nonZeros(), 0.0);
  for (size_t t = 0; t < values_.size(); ++t) value[slots_[t]] += values_[t];
  factor_.factorize(w_);
  if (factor_.info() != Eigen::Success) return false;
  // The block of the smallest pivot relative to its diagonal, if that one vanished (row k
  // of W_gg is row P(k) of the factored P W P^T). One block at a time: the rows a block
  // repeats may show their vanished pivots on either block.
  const Eigen::VectorXd& d = factor_.vectorD();
  const auto& permutation = factor_.permutationP().indices();
  double smallest = kRedundantPivot;
  for (uint32_t m = 0; m < members_.size(); ++m) {
    const int dim = rows.blocks[members_[m]].dim;
    for (int r = 0; r < dim; ++r) {
      const int k = offset_[m] + r;
      const double relative = diagonal(k) > 0.0 ? d(permutation(k)) / diagonal(k) : 0.0;
      if (!(relative >= smallest)) {
        smallest = relative;
        *redundant = members_[m];
      }
    }
  }
  rhs_.resize(n);
  return !redundant->has_value();
}

double DirectBlocks::Step(ConstraintRows& rows, const std::vector<Vec6>& dq,
                          absl::FunctionRef<void(uint32_t block, const Vec3& df)> apply) {
  double largest = 0.0;
  for (uint32_t m = 0; m < members_.size(); ++m) {
    const ConstraintBlock& b = rows.blocks[members_[m]];
    Vec3 delta = b.violation_free;
    if (b.body_a != kWorldBody) delta += b.jacobian_a * dq[b.body_a];
    if (b.body_b != kWorldBody) delta += b.jacobian_b * dq[b.body_b];
    rhs_.segment(offset_[m], b.dim) = -delta.head(b.dim);
    largest = std::max(largest, delta.head(b.dim).cwiseAbs().maxCoeff());
  }
  solution_ = factor_.solve(rhs_);
  for (uint32_t m = 0; m < members_.size(); ++m) {
    ConstraintBlock& b = rows.blocks[members_[m]];
    Vec3 df = Vec3::Zero();
    df.head(b.dim) = solution_.segment(offset_[m], b.dim);
    assert(df.allFinite());
    b.force += df;
    apply(members_[m], df);
  }
  return largest;
}

}  // namespace ligature
