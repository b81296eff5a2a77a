#include "server/solver/rod_kkt.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "server/math/rcm.h"

namespace ligature {
namespace {

// The rod system's components (of x, y, z, twist) that a problem's unknowns are.
int Component(const KktProblem& problem, int a) {
  return problem.dofs_per_point == 1 ? 3 : a;
}
// Compliance on every multiplier (m/N): negligible against the rods' (about 1e-7 m/N and
// up), it keeps redundant but consistent constraints (two holds on one point) solvable.
constexpr double kRegularization = 1e-14;

// Natural index of each group's first unknown (its slide, then its rows), after the rods'.
std::vector<int> GroupOffsets(const KktProblem& problem, int* total) {
  std::vector<int> first(problem.groups.size());
  int next = problem.dofs_per_point * problem.control_points;
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    first[g] = next;
    next += (problem.groups[g].has_slide ? 1 : 0) +
            static_cast<int>(problem.groups[g].rows.size());
  }
  *total = next;
  return first;
}

bool IsRelativeGroup(const KktGroup& g) { return g.anchor_b >= 0; }

// Calls visit(i, j) for every structural non-zero (i <= j or not, both orders not needed).
template <typename Visit>
void ForEachNonZero(const KktProblem& problem, const std::vector<int>& group_first,
                    Visit visit) {
  const int dpp = problem.dofs_per_point;
  for (size_t r = 0; r < problem.rods.size(); ++r) {
    const int n = problem.rods[r]->control_points();
    const int base = problem.first_point[r];
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 4 && i + k < n; ++k) {
        for (int a = 0; a < dpp; ++a) {
          for (int c = 0; c < dpp; ++c) {
            visit(dpp * (base + i) + a, dpp * (base + i + k) + c);
          }
        }
      }
    }
  }
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const KktGroup& group = problem.groups[g];
    const int slide = group_first[g];
    int row = slide + (group.has_slide ? 1 : 0);
    if (group.has_slide) visit(slide, slide);
    for (const KktRow& kr : group.rows) {
      visit(row, row);
      for (const auto& [dof, coeff] : kr.terms) visit(row, dof);
      if (group.has_slide) visit(row, slide);
      ++row;
    }
  }
}

template <typename Add>
void AssembleGroups(const KktProblem& problem, const std::vector<int>& group_first, Add add);

// Calls add(i, j, v) for every entry of the system (both triangles, natural indices):
// the rods' blocks (upper blocks mirrored below the diagonal), then the constraint rows
// and slides.
template <typename Add>
void Assemble(const KktProblem& problem, const std::vector<int>& group_first, Add add) {
  const int dpp = problem.dofs_per_point;
  for (size_t r = 0; r < problem.rods.size(); ++r) {
    const RodSystem& sys = *problem.rods[r];
    const int base = problem.first_point[r];
    const int n = sys.control_points();
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 4 && i + k < n; ++k) {
        const Mat4& block = sys.upper[i][k];
        for (int a = 0; a < dpp; ++a) {
          for (int c = 0; c < dpp; ++c) {
            const int row = dpp * (base + i) + a, col = dpp * (base + i + k) + c;
            const double v = block(Component(problem, a), Component(problem, c));
            add(row, col, v);
            if (k > 0) add(col, row, v);
          }
        }
      }
    }
  }
  AssembleGroups(problem, group_first, add);
}

// Calls add(i, j, v) for every entry of the constraint rows and slides (both triangles,
// natural indices).
template <typename Add>
void AssembleGroups(const KktProblem& problem, const std::vector<int>& group_first, Add add) {
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const KktGroup& group = problem.groups[g];
    const int slide = group_first[g];
    int row = slide + (group.has_slide ? 1 : 0);
    if (group.has_slide) add(slide, slide, group.slide_diagonal);
    for (const KktRow& kr : group.rows) {
      if (!kr.active) {
        add(row, row, 1.0);  // nu = 0
      } else {
        add(row, row, -kRegularization - kr.compliance);
        for (const auto& [dof, coeff] : kr.terms) {
          add(row, dof, coeff);
          add(dof, row, coeff);
        }
        if (group.has_slide) {
          add(row, slide, kr.slide_coeff);
          add(slide, row, kr.slide_coeff);
        }
      }
      ++row;
    }
  }
}

// Rod blocks of the lower band, in band order, with kDpp unknowns per control point
// (components 0..kDpp-1 of the 4 x 4 blocks, or the twist alone for kDpp = 1). A control
// point's unknowns are consecutive in band order, so each block lands at fixed steps from
// its corner, with no look-up per entry.
template <int kDpp>
void AssembleRodLower(const RodSystem& sys, int base, const std::vector<int>& position,
                      BandedLdlt* ldlt) {
  constexpr int kFirst = kDpp == 1 ? 3 : 0;  // first component used
  const int n = sys.control_points();
  for (int i = 0; i < n; ++i) {
    const int pi = position[kDpp * (base + i)];
    assert(position[kDpp * (base + i) + kDpp - 1] == pi + kDpp - 1);
    const Mat4& diagonal = sys.upper[i][0];
    for (int c = 0; c < kDpp; ++c) {
      for (int a = c; a < kDpp; ++a) {
        ldlt->Add(pi + a, pi + c, diagonal(kFirst + a, kFirst + c));
      }
    }
    for (int k = 1; k < 4 && i + k < n; ++k) {
      const Mat4& block = sys.upper[i][k];
      // The two points' unknowns do not interleave: the whole block lies on one side.
      const int pj = position[kDpp * (base + i + k)];
      for (int c = 0; c < kDpp; ++c) {
        for (int a = 0; a < kDpp; ++a) {
          const double v = block(kFirst + a, kFirst + c);
          if (pi > pj) {
            ldlt->Add(pi + a, pj + c, v);
          } else {
            ldlt->Add(pj + c, pi + a, v);
          }
        }
      }
    }
  }
}

// The lower band of the system in band order (`position`: natural index -> band index),
// added into `ldlt`: the rods block by block, the constraint rows and slides entry by entry.
void AssembleLower(const KktProblem& problem, const std::vector<int>& group_first,
                   const std::vector<int>& position, BandedLdlt* ldlt) {
  for (size_t r = 0; r < problem.rods.size(); ++r) {
    const RodSystem& sys = *problem.rods[r];
    const int base = problem.first_point[r];
    switch (problem.dofs_per_point) {
      case 1:
        AssembleRodLower<1>(sys, base, position, ldlt);
        break;
      case 3:
        AssembleRodLower<3>(sys, base, position, ldlt);
        break;
      default:
        assert(problem.dofs_per_point == 4);
        AssembleRodLower<4>(sys, base, position, ldlt);
    }
  }
  AssembleGroups(problem, group_first, [&](int i, int j, double v) {
    const int pi = position[i], pj = position[j];
    if (pi >= pj) ldlt->Add(pi, pj, v);
  });
}

}  // namespace

int RodKkt::Bandwidth(const KktProblem& problem, const std::vector<int>& position) const {
  int total = 0;
  const std::vector<int> group_first = GroupOffsets(problem, &total);
  int band = 0;
  ForEachNonZero(problem, group_first, [&](int i, int j) {
    const int pi = position.empty() ? i : position[i];
    const int pj = position.empty() ? j : position[j];
    band = std::max(band, std::abs(pi - pj));
  });
  return band;
}

int RodKkt::NaturalBandwidth(const KktProblem& problem) const {
  return Bandwidth(problem, {});
}

// Reverse Cuthill-McKee on a simplified relation graph: each rod a chain of its control
// points, relative constraints linked to their two anchor points. Two chains are tried:
// each point linked to the next only (a breadth-first search then advances one point per
// level along every rod at once, interleaving parallel rods finely) and each point linked
// to the three next (the spline's true coupling, which suits fans of rods meeting at a
// hub), and a plain sweep along all rods (below); the ordering with the narrowest band of
// the real system is kept.
void RodKkt::Reorder(const KktProblem& problem) {
  const int points = problem.control_points;
  std::vector<int> relative;
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    if (IsRelativeGroup(problem.groups[g])) relative.push_back(static_cast<int>(g));
  }
  auto graph = [&](int reach) {
    std::vector<std::vector<int>> adjacency(points + relative.size());
    for (size_t r = 0; r < problem.rods.size(); ++r) {
      const int n = problem.rods[r]->control_points();
      const int base = problem.first_point[r];
      for (int i = 0; i < n; ++i) {
        for (int k = 1; k <= reach && i + k < n; ++k) {
          adjacency[base + i].push_back(base + i + k);
          adjacency[base + i + k].push_back(base + i);
        }
      }
    }
    for (size_t k = 0; k < relative.size(); ++k) {
      const KktGroup& g = problem.groups[relative[k]];
      const int node = points + static_cast<int>(k);
      for (const int anchor : {g.anchor_a, g.anchor_b}) {
        adjacency[node].push_back(anchor);
        adjacency[anchor].push_back(node);
      }
    }
    return adjacency;
  };
  // A sweep along all rods at once: control points by their fraction of their rod's
  // length, each relative constraint right after the later of its two anchors. Suits rods
  // that run side by side (ladders, braids, bundles).
  auto sweep = [&] {
    std::vector<double> key(points + relative.size());
    for (size_t r = 0; r < problem.rods.size(); ++r) {
      const int n = problem.rods[r]->control_points();
      for (int i = 0; i < n; ++i) key[problem.first_point[r] + i] = (i + 0.5) / n;
    }
    for (size_t k = 0; k < relative.size(); ++k) {
      const KktGroup& g = problem.groups[relative[k]];
      key[points + k] = std::max(key[g.anchor_a], key[g.anchor_b]);
    }
    std::vector<int> order(key.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });
    return order;
  };
  int best = -1;
  std::vector<int> best_order;
  for (const int candidate : {0, 1, 3}) {
    node_order_ = candidate == 0 ? sweep() : ReverseCuthillMcKee(graph(candidate));
    BuildLookup(problem);
    const int band = Bandwidth(problem, position_);
    if (best < 0 || band < best) {
      best = band;
      best_order = node_order_;
    }
  }
  node_order_ = std::move(best_order);
  ++reorders_;
}

// Band index of every unknown: control points in RCM order, each followed by the groups
// whose last touched point (in that order) it is. A group's rows then come after all the
// unknowns they act on, which keeps the symmetric factorization's pivots well signed (see
// Solve); relative constraints' graph nodes only shape the order.
void RodKkt::BuildLookup(const KktProblem& problem) {
  int total = 0;
  const std::vector<int> group_first = GroupOffsets(problem, &total);
  const int points = problem.control_points;
  const int dpp = problem.dofs_per_point;
  std::vector<int> rank(points, -1);
  for (size_t k = 0; k < node_order_.size(); ++k) {
    if (node_order_[k] < points) rank[node_order_[k]] = static_cast<int>(k);
  }
  std::vector<std::vector<int>> attached(points);
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const KktGroup& group = problem.groups[g];
    assert(group.anchor_a >= 0 && group.anchor_a < points);
    int last = group.anchor_a;
    if (group.anchor_b >= 0 && rank[group.anchor_b] > rank[last]) last = group.anchor_b;
    for (const KktRow& row : group.rows) {
      for (const auto& term : row.terms) {
        const int point = term.first / dpp;
        if (rank[point] > rank[last]) last = point;
      }
    }
    attached[last].push_back(static_cast<int>(g));
  }
  position_.assign(total, -1);
  int next = 0;
  for (const int node : node_order_) {
    if (node >= points) continue;
    for (int a = 0; a < dpp; ++a) position_[dpp * node + a] = next++;
    // A group's rows, then its slide: the slide has no stiffness of its own (at most
    // friction), so its pivot must come after the rows' (which make it positive).
    for (const int g : attached[node]) {
      const KktGroup& group = problem.groups[g];
      const int slide = group.has_slide ? 1 : 0;
      for (size_t k = 0; k < group.rows.size(); ++k) {
        position_[group_first[g] + slide + k] = next++;
      }
      if (slide) position_[group_first[g]] = next++;
    }
  }
  assert(next == total);
}

absl::StatusOr<KktSolution> RodKkt::Solve(const KktProblem& problem) {
  // The relation graph's key: the rods' sizes and the relative constraints' anchors.
  std::vector<int> key = {problem.control_points};
  for (const int first : problem.first_point) key.push_back(first);
  size_t nodes = static_cast<size_t>(problem.control_points);
  for (const KktGroup& g : problem.groups) {
    if (IsRelativeGroup(g)) {
      key.push_back(g.anchor_a);
      key.push_back(g.anchor_b);
      ++nodes;
    }
  }
  // The layout's key: every group's place and size, and the unknowns each of its rows
  // touches, every row and every unknown (a key on the first row's control points only let
  // a changed row go out of the cached band). While it holds, the look-up vector and the
  // band are those of the last solve.
  const int dpp = problem.dofs_per_point;
  std::vector<int> layout = {dpp};
  for (const KktGroup& g : problem.groups) {
    layout.insert(layout.end(), {-1, g.anchor_a, g.anchor_b, static_cast<int>(g.rows.size()),
                                 g.has_slide ? 1 : 0});
    for (const KktRow& row : g.rows) {
      layout.push_back(-2);
      for (const auto& term : row.terms) layout.push_back(term.first);
    }
  }
  // An ordering taken from elsewhere (SetOrdering) is kept only for a graph of its size.
  const bool reorder = key != graph_key_ || node_order_.empty() || node_order_.size() != nodes;
  if (reorder) {
    graph_key_ = std::move(key);
    Reorder(problem);
  }
  if (reorder || layout != layout_key_) {
    layout_key_ = std::move(layout);
    BuildLookup(problem);
    band_ = std::max(1, Bandwidth(problem, position_));
  }

  int total = 0;
  const std::vector<int> group_first = GroupOffsets(problem, &total);
  const int band = band_;

  // The symmetric factorization first (half the work, no fill), assembled straight into
  // its lower band; when a pivot is too small (redundant constraints, or an ordering that
  // leaves a row before its unknowns) the LU with partial pivoting takes over.
  factored_unknowns_ = -1;
  ldlt_.Reset(total, band);
  AssembleLower(problem, group_first, position_, &ldlt_);
  std::vector<double> x = RightHandSide(problem);
  use_ldlt_ = ldlt_.FactorAndSolve(std::span<double>(x)).ok();
  if (!use_ldlt_) {
    matrix_.Reset(total, band, band);
    Assemble(problem, group_first,
             [&](int i, int j, double v) { matrix_.Add(position_[i], position_[j], v); });
    const absl::Status factored = lu_.Factor(&matrix_);
    if (!factored.ok()) return factored;
    x = RightHandSide(problem);  // the failed LDL^T left it partly substituted
    lu_.Solve(std::span<double>(x));
  }
  factored_unknowns_ = total;
  KktSolution out = ReadSolution(problem, x);
  out.bandwidth = band;
  return out;
}

absl::Status RodKkt::SetOrdering(Ordering ordering) {
  const size_t n = ordering.node_order.size();
  std::vector<char> seen(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const int node = ordering.node_order[k];
    if (node < 0 || static_cast<size_t>(node) >= n || seen[node]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node_order[", k, "]: ", node, " (must be a permutation of 0..", n, "-1)"));
    }
    seen[node] = 1;
  }
  graph_key_ = std::move(ordering.graph_key);
  node_order_ = std::move(ordering.node_order);
  // The look-up, the band and the factorization are rebuilt at the next Solve.
  layout_key_.clear();
  position_.clear();
  factored_unknowns_ = -1;
  return absl::OkStatus();
}

absl::StatusOr<KktSolution> RodKkt::Resolve(const KktProblem& problem) {
  int total = 0;
  GroupOffsets(problem, &total);
  if (total != factored_unknowns_ || static_cast<int>(position_.size()) != total) {
    return absl::FailedPreconditionError("the system changed size since it was factorized");
  }
  std::vector<double> x = RightHandSide(problem);
  SolveFactored(x);
  KktSolution out = ReadSolution(problem, x);
  out.bandwidth = band_;
  return out;
}

absl::StatusOr<KktSolution> RodKkt::ResolveForces(
    const KktProblem& problem, std::span<const std::pair<int, double>> forces) const {
  int total = 0;
  GroupOffsets(problem, &total);
  if (total != factored_unknowns_ || static_cast<int>(position_.size()) != total) {
    return absl::FailedPreconditionError("the system changed size since it was factorized");
  }
  const int rod_unknowns = problem.dofs_per_point * problem.control_points;
  std::vector<double> x(total, 0.0);
  for (const auto& [unknown, force] : forces) {
    if (unknown < 0 || unknown >= rod_unknowns) {
      return absl::InvalidArgumentError(absl::StrCat("unknown ", unknown, " is not a rod's"));
    }
    x[position_[unknown]] += force;
  }
  SolveFactored(x);
  KktSolution out = ReadSolution(problem, x);
  out.bandwidth = band_;
  return out;
}

absl::StatusOr<Eigen::MatrixXd> RodKkt::ComplianceColumns(const KktProblem& problem,
                                                          std::span<const int> unknowns) const {
  int total = 0;
  GroupOffsets(problem, &total);
  if (total != factored_unknowns_ || static_cast<int>(position_.size()) != total) {
    return absl::FailedPreconditionError("the system changed size since it was factorized");
  }
  const int rod_unknowns = problem.dofs_per_point * problem.control_points;
  for (const int u : unknowns) {
    if (u < 0 || u >= rod_unknowns) {
      return absl::InvalidArgumentError(absl::StrCat("unknown ", u, " is not a rod's"));
    }
  }
  const int k = static_cast<int>(unknowns.size());
  Eigen::MatrixXd out(k, k);
  std::vector<double> x(total);
  for (int c = 0; c < k; ++c) {
    std::fill(x.begin(), x.end(), 0.0);
    x[position_[unknowns[c]]] = 1.0;
    SolveFactored(x);
    for (int i = 0; i < k; ++i) out(i, c) = x[position_[unknowns[i]]];
  }
  return out;
}

void RodKkt::SolveFactored(std::vector<double>& x) const {
  if (use_ldlt_) {
    ldlt_.Solve(std::span<double>(x));
  } else {
    lu_.Solve(std::span<double>(x));
  }
}

// F per rod unknown, 0 for slides, E for active rows (0 for inactive ones), in band order.
std::vector<double> RodKkt::RightHandSide(const KktProblem& problem) const {
  int total = 0;
  const std::vector<int> group_first = GroupOffsets(problem, &total);
  const int dpp = problem.dofs_per_point;
  std::vector<double> rhs(total, 0.0);
  for (size_t r = 0; r < problem.rods.size(); ++r) {
    const RodSystem& sys = *problem.rods[r];
    const int base = problem.first_point[r];
    for (int i = 0; i < sys.control_points(); ++i) {
      for (int a = 0; a < dpp; ++a) {
        rhs[position_[dpp * (base + i) + a]] = sys.rhs[i][Component(problem, a)];
      }
    }
  }
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const KktGroup& group = problem.groups[g];
    int row = group_first[g] + (group.has_slide ? 1 : 0);
    for (const KktRow& kr : group.rows) {
      if (kr.active) rhs[position_[row]] = kr.rhs;
      ++row;
    }
  }
  return rhs;
}

KktSolution RodKkt::ReadSolution(const KktProblem& problem, const std::vector<double>& x) const {
  int total = 0;
  const std::vector<int> group_first = GroupOffsets(problem, &total);
  KktSolution out;
  out.unknowns = total;
  out.dx.resize(problem.dofs_per_point * problem.control_points);
  for (size_t i = 0; i < out.dx.size(); ++i) out.dx[i] = x[position_[i]];
  out.slide.assign(problem.groups.size(), 0.0);
  out.force.resize(problem.groups.size());
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const KktGroup& group = problem.groups[g];
    int row = group_first[g];
    if (group.has_slide) out.slide[g] = x[position_[row++]];
    out.force[g].resize(group.rows.size());
    for (size_t k = 0; k < group.rows.size(); ++k) out.force[g][k] = -x[position_[row++]];
  }
  return out;
}

}  // namespace ligature
