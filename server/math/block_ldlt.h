#pragma once
// Solves with the LDL^T factor of a sparse symmetric positive definite matrix B whose
// unknowns come in triples (a vertex's three coordinates), stored as 3x3 blocks.
//
// When B is ordered by vertex (P B P^T = L D L^T with pivots 3k, 3k + 1, 3k + 2 the three
// unknowns 3v, 3v + 1, 3v + 2 of one vertex v, in that order), every block of L between two
// vertices is dense or absent, so L is kept as a unit lower triangle per vertex and a list
// of 3x3 blocks below it. A solve then reads one row index per nine values and does its
// work in 3x3 products, where a scalar solve reads an index per value and scatters each:
// it is the cost of every preconditioned iteration and of every contact response. The loops
// are fixed, so the same factor and input give the same bits.

#include <optional>
#include <span>
#include <vector>

#include "server/math/types.h"

namespace ligature {

class BlockLdlt {
 public:
  // From a scalar factor: column j of L has its entries below the diagonal at
  // rows[start[j] + k], values[start[j] + k] for k < count[j] (pivot rows, in any order);
  // d is D; unknown[j] is the unknown pivot j eliminates. nullopt when the pivots are not
  // vertex triples as above (or n is not a multiple of 3).
  static std::optional<BlockLdlt> FromScalar(std::span<const int> start, std::span<const int> count,
                                             const int* rows, const double* values,
                                             std::span<const double> d,
                                             std::span<const int> unknown);

  int size() const { return 3 * static_cast<int>(vertex_.size()); }

  // x = W B^-1 W^T b, W block-diagonal with one rotation per vertex: `frames` holds one
  // per vertex, or one for all, or none (W = I). b and x have size() entries; x may not
  // alias b.
  void Solve(std::span<const Mat3> frames, const double* b, double* x) const;

 private:
  // Per block column (pivot vertex) k: its vertex, D, the unit lower triangle's three
  // entries (l10, l20, l21) and its blocks below: rows_[first_[k] .. first_[k + 1]) are
  // block rows (pivot vertices), blocks_ their 3x3 values, column-major.
  std::vector<int> vertex_;
  std::vector<double> d_;
  std::vector<double> lower_;
  std::vector<int> first_;
  std::vector<int> rows_;
  std::vector<double> blocks_;
};

}  // namespace ligature
