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
  for (uint32_t m = 0; m < members_.size(); ++m) {
    const ConstraintBlock& b = rows.blocks[members_[m]];
    offset_[m] = n;
    n += b.dim;
    if (b.body_a != kWorldBody) sides.push_back({b.body_a, m, 0});
    if (b.body_b != kWorldBody) sides.push_back({b.body_b, m, 1});
  }
  std::stable_sort(sides.begin(), sides.end());
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(n);
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
          for (int c = 0; c < bq.dim; ++c) entries.emplace_back(row + r, col + c, w(r, c));
          if (p == q) diagonal(row + r) += w(r, r);
        }
      }
    }
    first = last;
  }
  // A share of each diagonal far below the redundancy test keeps exactly repeated rows
  // from stopping the factorization: their pivots come out tiny and are found below.
  for (int k = 0; k < n; ++k) entries.emplace_back(k, k, kDiagonalShare * diagonal(k));
  Eigen::SparseMatrix<double> w(n, n);
  w.setFromTriplets(entries.begin(), entries.end());
  factor_.compute(w);
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
