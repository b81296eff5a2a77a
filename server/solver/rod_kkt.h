#pragma once
// The constrained rod system of one step, eq. 2 of MICADO, and its direct solution:
//
//   [ S   0   Jx^T ] [ dX ]   [ F ]
//   [ 0   Cs  Js^T ] [ ds ] = [ 0 ]
//   [ Jx  Js  0    ] [ nu ]   [ E ]
//
// dX the rods' displacements (S, F from AssembleRodSystem), ds the slides of sliding
// constraints (Cs their viscous friction), nu = -lambda the constraint forces, E the
// violations to remove. The unknowns are reordered so that the matrix is banded: reverse
// Cuthill-McKee over a simplified relation graph (one node per control point, one per
// relative constraint, linked to the control point nearest each of its rod points), with
// absolute constraints inserted right after the control point they act on. The ordering is
// kept as a look-up vector and rebuilt only when the graph changes; an absolute or sliding
// constraint that moves along its rod is re-attached in O(1). The band is factorized by a
// symmetric LDL^T without pivoting when its pivots allow (every constraint row is placed
// after the unknowns it acts on, so the system is quasi-definite in that order), else by
// LU with partial pivoting (the system is indefinite).

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/math/band_matrix.h"
#include "server/math/banded_ldlt.h"
#include "server/constraint/rod/kkt_rows.h"
#include "server/model/rod/rod_dynamics.h"

namespace ligature {

struct KktProblem {
  // Which of a control point's four degrees of freedom (x, y, z, twist) are unknowns here:
  // 4 (all), 3 (positions) or 1 (twist). Twist is decoupled from positions in the rods'
  // systems, so it can be solved on its own, which keeps the position system's band narrow.
  int dofs_per_point = 4;
  // Dynamic rods, in order; rod r's unknowns start at dofs_per_point * first_point[r].
  std::vector<const RodSystem*> rods;
  std::vector<int> first_point;
  std::vector<KktGroup> groups;
  int control_points = 0;  // total over rods
};

struct KktSolution {
  std::vector<double> dx;      // per rod unknown
  std::vector<double> slide;   // per group (0 without a slide)
  std::vector<std::vector<double>> force;  // per group, per row: lambda = -nu
  int bandwidth = 0;           // half-bandwidth of the reordered matrix
  int unknowns = 0;
};

class RodKkt {
 public:
  // Solves the problem; reorders only when the relation graph differs from the last one.
  absl::StatusOr<KktSolution> Solve(const KktProblem& problem);
  // Solves again with the last factorization and this problem's right-hand sides (a chord
  // step: the matrix is taken as unchanged). Fails when the problem's size differs.
  absl::StatusOr<KktSolution> Resolve(const KktProblem& problem);

  // Solves with the last factorization for forces on the rods' unknowns alone: the
  // right-hand side holds `forces` (natural unknown index, N) and is zero elsewhere, no
  // force from the rods' own system and no violation on any row, so the answer is how the
  // forces move the rods with every constraint of the factorized system still held (the
  // constrained compliance applied to them). FAILED_PRECONDITION when the problem's size
  // differs from the factorized one.
  absl::StatusOr<KktSolution> ResolveForces(
      const KktProblem& problem, std::span<const std::pair<int, double>> forces) const;
  // Columns of the constrained compliance between rod unknowns (natural indices): entry
  // (i, k) is how far unknown i moves under a unit force on unknown k, every constraint
  // held; one solve with the last factorization per column.
  absl::StatusOr<Eigen::MatrixXd> ComplianceColumns(const KktProblem& problem,
                                                    std::span<const int> unknowns) const;

  // Half-bandwidth with the natural order (rods, then slides, then rows) and with the
  // current ordering, for diagnostics and benchmarks.
  int NaturalBandwidth(const KktProblem& problem) const;
  int reorders() const { return reorders_; }

  // The band ordering kept from solve to solve (snapshots carry it): the key of the
  // relation graph it was chosen for, and the graph's nodes in band order.
  struct Ordering {
    std::vector<int> graph_key;
    std::vector<int> node_order;
  };
  Ordering ordering() const { return {graph_key_, node_order_}; }
  // Takes an ordering; the next Solve keeps it when its graph has that key and as many
  // nodes, and reorders otherwise. INVALID_ARGUMENT unless node_order is a permutation of
  // 0..n-1 (empty: none yet).
  absl::Status SetOrdering(Ordering ordering);

 private:
  // Node of the relation graph: a control point or a relative constraint.
  void Reorder(const KktProblem& problem);
  void BuildLookup(const KktProblem& problem);
  int Bandwidth(const KktProblem& problem, const std::vector<int>& position) const;
  // The right-hand side in band order, and the solution read back from it.
  std::vector<double> RightHandSide(const KktProblem& problem) const;
  KktSolution ReadSolution(const KktProblem& problem, const std::vector<double>& x) const;

  // What the cached ordering was built for: point count and the relative groups' anchors.
  std::vector<int> graph_key_;
  std::vector<int> layout_key_;  // what position_ and band_ were built for
  int band_ = 1;
  int factored_unknowns_ = -1;  // size of the system lu_ holds
  std::vector<int> node_order_;  // RCM order of graph nodes
  std::vector<int> position_;    // unknown (natural index) -> band index
  int reorders_ = 0;
  void SolveFactored(std::vector<double>& x) const;

  BandMatrix matrix_{0, 0, 0};
  BandedLdlt ldlt_;
  BandedLu lu_;
  bool use_ldlt_ = false;  // which of the two holds the current factorization
};

}  // namespace ligature
