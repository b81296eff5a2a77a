#pragma once
// An equivalent stress tensor for the tets of a mass-point model, so that its bodies meet
// the same physical cutting criterion as FEM bodies (cutting.h, EvaluateCuttingStress).
//
// The model has no stress of its own: it has edge springs and per-tet volume terms. The
// stress a tet carries is the virial (Cauchy) stress of the internal forces acting in it,
//   sigma = (1/V) sum_{edges e of t} w_e T_e l_e u_e u_e^T + k_v (V - V0) / V0^2 I,
// with T_e = k_d (l_e - l0_e) / l0_e the tension of edge e (N, pulling when positive),
// l_e its current length, u_e its unit direction, w_e = 1 / (the number of tets that share
// edge e) the tet's share of that spring, V the tet's current volume and the second term
// minus the volume term's pressure, -dE/dV. Tension is positive, as in FEM.
//
// It is the homogenised stress of the tet's own share of the energy: for a single tet
// (every w_e = 1) sigma V = -sum_a f_a (x_a - centroid) exactly, f_a the model's elastic
// forces on its vertices (the virial theorem), which the unit tests check.

#include <array>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/mass_point_model.h"

namespace ligature {

class MassPointStress {
 public:
  // Maps each tet of the model to its six edges and counts the tets sharing each edge.
  explicit MassPointStress(const MassPointModel& model);

  // The equivalent Cauchy stress of tet t at positions x (Pa). Assumes t and x valid for
  // the model this was built from; a flat or inverted tet has no stress (zero).
  Mat3 Stress(const MassPointModel& model, const std::vector<Vec3>& x, int t) const;

 private:
  std::vector<std::array<int, 6>> tet_edges_;  // -1: the model has no such spring
  std::vector<int> edge_tets_;
};

}  // namespace ligature
