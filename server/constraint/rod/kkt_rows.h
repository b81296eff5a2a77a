#pragma once
// The rows a rod constraint contributes to the rods' constrained system (solver/rod_kkt.h):
// each a linear combination of rod unknowns (and the constraint's slide, if it has one)
// equal to the violation to remove, grouped per constraint.

#include <utility>
#include <vector>

namespace ligature {

// One scalar constraint row.
struct KktRow {
  std::vector<std::pair<int, double>> terms;  // (rod unknown index, coefficient)
  double slide_coeff = 0.0;                   // on the group's slide unknown, if any
  double rhs = 0.0;                           // E
  bool active = true;                         // an inactive row carries no force
  // m/N: a compliant row gives way by compliance * force. Contacts use some, so that many
  // nearly redundant contact rows share their load evenly; exact constraints use none (the
  // solver's own regularization, far below the rods' compliance, only keeps redundant
  // constraints solvable).
  double compliance = 0.0;
};

// The rows of one constraint, and where it acts.
struct KktGroup {
  std::vector<KktRow> rows;
  bool has_slide = false;
  double slide_diagonal = 0.0;  // Cs (friction), >= 0
  // Global control-point indices it acts on: one (absolute) or two (relative).
  int anchor_a = -1;
  int anchor_b = -1;
};

}  // namespace ligature
