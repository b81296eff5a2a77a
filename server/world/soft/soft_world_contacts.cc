// The soft bodies' side of their contacts through the world's constraint solver: the
// compliance of the contacted vertices over the step, and the solved forces applied.
//
// A corotational body's step solves A dv = rhs (see fem_corotational.h). Constant forces F
// on its vertices over the step add h F to the right-hand side, so they move the vertices
// by h^2 A^-1 F at the end of the step and change their velocities by h A^-1 F: the
// compliance between contacted vertices is h^2 A^-1, restricted to them (guebert's
// constraint space for a deformable body), through the system's response operator (A^-1,
// or the preconditioner's P^-1: see CorotationalSolve). Its columns cost one solve each,
// three per vertex, and are kept for as long as the operator stays, so that a resting
// contact costs only its blocks. A corotational body couples at most kMaxCoupledPoints
// points (the dense compliance grows with their square; past that the world projects the
// body instead). The explicit StVK bodies take each vertex alone with its lumped mass,
// h^2 / m, and the forces move that vertex alone (the elastic forces spread the motion
// over the next substeps), which is what their explicit integrator would do with a force
// on that vertex. Mass-point bodies do the same under every integrator: the contact is an
// impulse h F at the end of the step, x += h^2 F / m and v += h F / m, which their next
// step carries on.

#include <algorithm>
#include <cassert>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/world/soft/soft_world.h"

namespace ligature {

std::optional<Eigen::MatrixXd> SoftWorld::CoupledCompliance(
    int body, std::span<const WeightedPoint> points) const {
  const Body& b = bodies_[body];
  if (!b.factorized || !b.fem || points.empty() ||
      static_cast<int>(points.size()) > kMaxCoupledPoints) {
    return std::nullopt;
  }
  CorotationalSystem& system = *b.system;
  const int k = static_cast<int>(points.size());
  // The distinct vertices the points lie on, and the operator's blocks between them.
  std::vector<int> vertices;
  absl::flat_hash_map<int, int> index;
  for (const WeightedPoint& point : points) {
    for (int i = 0; i < 3; ++i) {
      if (point.weight[i] != 0.0 && index.try_emplace(point.vertex[i], vertices.size()).second) {
        vertices.push_back(point.vertex[i]);
      }
    }
  }
  const Eigen::MatrixXd& between = system.InverseBetween(vertices);
  const double h2 = system.time_step() * system.time_step();
  // Points that are each a vertex of their own (the contacts of vertices): C = h^2 B,
  // symmetric as B is. Otherwise C = h^2 W^T B W, W each point's weights on its vertices:
  // B W a point's column at a time, then W^T (B W) a point's row at a time.
  const bool vertex_points =
      static_cast<int>(vertices.size()) == k &&
      std::ranges::all_of(points, [](const WeightedPoint& p) { return p.weight[0] == 1.0; });
  if (vertex_points) {
    Eigen::MatrixXd c = h2 * between;
    if (!c.allFinite()) return std::nullopt;
    return c;
  }
  Eigen::MatrixXd bw = Eigen::MatrixXd::Zero(between.rows(), 3 * k);
  for (int q = 0; q < k; ++q) {
    for (int j = 0; j < 3; ++j) {
      const double w = points[q].weight[j];
      if (w == 0.0) continue;
      bw.middleCols<3>(3 * q) += w * between.middleCols<3>(3 * index.at(points[q].vertex[j]));
    }
  }
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(3 * k, 3 * k);
  for (int p = 0; p < k; ++p) {
    for (int i = 0; i < 3; ++i) {
      const double w = points[p].weight[i];
      if (w == 0.0) continue;
      c.middleRows<3>(3 * p) += (h2 * w) * bw.middleRows<3>(3 * index.at(points[p].vertex[i]));
    }
  }
  if (!c.allFinite()) return std::nullopt;
  // Symmetric up to round-off; made exactly so for the solver.
  return Eigen::MatrixXd(0.5 * (c + c.transpose()));
}

double SoftWorld::LumpedCompliance(int body, const WeightedPoint& point, double h) const {
  const std::vector<double>& mass = bodies_[body].masses();
  double c = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double w = point.weight[i];
    if (w == 0.0) continue;
    assert(mass[point.vertex[i]] > 0.0);
    c += w * w * h * h / mass[point.vertex[i]];
  }
  return c;
}

Vec3 SoftWorld::PointMotion(int body, const WeightedPoint& point) const {
  const Body& b = bodies_[body];
  Vec3 motion = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    const int v = point.vertex[i];
    motion += point.weight[i] * (b.positions()[v] - b.start[v]);
  }
  return motion;
}

void SoftWorld::ApplyContactForces(int body, std::span<const WeightedPoint> points,
                                   std::span<const Vec3> forces, double h, bool coupled) {
  Body& b = bodies_[body];
  if (coupled) {
    FemState& state = b.fem_state;
    const FemRest& rest = *b.fem_rest();
    const int n = static_cast<int>(state.x.size());
    Eigen::VectorXd f = Eigen::VectorXd::Zero(3 * n);
    for (size_t p = 0; p < points.size(); ++p) {
      for (int i = 0; i < 3; ++i) {
        f.segment<3>(3 * points[p].vertex[i]) += points[p].weight[i] * forces[p];
      }
    }
    const Eigen::VectorXd y = b.system->Solve(f);
    if (!y.allFinite()) return;
    for (int v = 0; v < n; ++v) {
      if (rest.fixed[v]) continue;
      state.x[v] += h * h * y.segment<3>(3 * v);
      state.v[v] += h * y.segment<3>(3 * v);
    }
    return;
  }
  // Each vertex alone. A Verlet body's next step reads its velocity from x - x_prev, so
  // moving x alone gives it the impulse's velocity; the velocity it reports is the central
  // difference, which the impulse changes by half as much.
  std::vector<Vec3>& x = b.mutable_positions();
  std::vector<Vec3>& v = b.mutable_velocities();
  const std::vector<double>& mass = b.masses();
  for (size_t p = 0; p < points.size(); ++p) {
    if (!forces[p].allFinite()) continue;
    for (int i = 0; i < 3; ++i) {
      const int k = points[p].vertex[i];
      const double w = points[p].weight[i];
      if (w == 0.0 || b.held(k)) continue;
      const double dv =
          b.mass_point ? VelocityForceCoefficient(b.desc.integrator, h, mass[k]) : h / mass[k];
      x[k] += (w * h * h / mass[k]) * forces[p];
      v[k] += (w * dv) * forces[p];
    }
  }
}

}  // namespace ligature
