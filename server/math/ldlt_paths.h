#pragma once
// Entries of the inverse of a sparse symmetric positive definite matrix B, read from its
// factor P B P^T = L D L^T without solves.
//
// With z_a = D^-1/2 L^-1 P e_a, (B^-1)_ab = z_a . z_b. L^-1 e_k is nonzero only on the
// path of pivot k up the elimination tree (k, its parent, ..., a root; a pivot's parent
// is the first row below the diagonal in its column of L), because every row below the
// diagonal of a column of L is an ancestor of that column. So z_a costs only the entries
// of L on its path, and two paths share exactly their top part, from where they meet up to
// the root: the dot product runs over that part alone. Pivots in different trees (parts
// of B that do not touch) share nothing, and their entry is zero.
//
// Unknowns that B couples to each other (a vertex's three coordinates) lie on one path:
// of two coupled pivots, the later is an ancestor of the earlier. They are kept together,
// one path and a row of values per pivot on it, so that a block of B^-1 between two such
// groups is one walk over their shared part.

#include <memory>
#include <span>
#include <vector>

#include <Eigen/SparseCholesky>

namespace ligature {

// The z of a group of unknowns: the pivots of their path, increasing, and z's values
// there, row by row (values[i * width + c] is unknown c's at pivots[i]).
struct PathColumns {
  int width = 0;
  std::vector<int> pivots;
  std::vector<double> values;
};

class LdltPaths {
 public:
  // The factor, by reference (it must outlive this): column j of L has its entries below
  // the diagonal at rows[start[j] + k] and values[start[j] + k] for k < count[j] (in any
  // order); d is D (all > 0); pivot[a] is the pivot that unknown a of B became.
  LdltPaths(std::vector<int> start, std::vector<int> count, const int* rows,
            const double* values, std::span<const double> d, std::vector<int> pivot);

  // The paths of an Eigen::SimplicialLDLT factor (its L holds only the entries below the
  // diagonal; P takes unknown a to pivot P.indices()[a], or is empty for no ordering).
  template <typename Factor>
  static std::unique_ptr<LdltPaths> Of(const Factor& f);

  int size() const { return static_cast<int>(pivot_.size()); }

  // The z of `unknowns` (each in [0, size()), all coupled to each other in B, or just
  // one).
  void Columns(std::span<const int> unknowns, PathColumns* out);

  // The block of B^-1 between two groups, a.width x b.width, into out (row-major): sums
  // over their shared pivots, taken from the root down, so that Dot(a, b) and Dot(b, a)
  // are transposes to the bit.
  static void Dot(const PathColumns& a, const PathColumns& b, double* out);

 private:
  std::vector<int> start_;
  std::vector<int> count_;
  const int* rows_;
  const double* values_;
  std::vector<double> scale_;  // D^-1/2
  std::vector<int> pivot_;
  std::vector<int> parent_;  // -1 at a root
  // Scratch of Columns: each pivot's place on the current path (-1 off it).
  std::vector<int> place_;
};

template <typename Factor>
std::unique_ptr<LdltPaths> LdltPaths::Of(const Factor& f) {
  const auto& l = f.matrixL().nestedExpression();
  const int n = static_cast<int>(l.cols());
  std::vector<int> start(n), count(n), pivot(n);
  for (int j = 0; j < n; ++j) {
    start[j] = l.outerIndexPtr()[j];
    count[j] = l.outerIndexPtr()[j + 1] - start[j];
    pivot[j] = f.permutationP().size() == n ? f.permutationP().indices()[j] : j;
  }
  return std::make_unique<LdltPaths>(std::move(start), std::move(count), l.innerIndexPtr(),
                                     l.valuePtr(), std::span<const double>(f.vectorD().data(), n),
                                     std::move(pivot));
}

}  // namespace ligature
