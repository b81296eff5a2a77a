// Local constraint forces for mass-point models: nails, points-to-point, point-to-line,
// -triangle, -tetrahedron and -surface, with switching and self-assembly.

#include "server/constraint/soft/local_constraints.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Barycentric coordinates of p in the tet (a, b, c, d); not clamped.
std::array<double, 4> TetBarycentric(const Vec3& p, const Vec3& a, const Vec3& b,
                                     const Vec3& c, const Vec3& d) {
  Mat3 e;
  e.col(0) = b - a;
  e.col(1) = c - a;
  e.col(2) = d - a;
  const Vec3 l = e.fullPivLu().solve(p - a);
  return {1.0 - l.sum(), l.x(), l.y(), l.z()};
}

// Forces of a point bound to sum alpha_i x_i (eq. 28): F~_0 on the point and -alpha_i F~_0
// on the others. `pred` are the predicted positions at the constraint time.
void PointToCombinationForces(std::span<const int> points, std::span<const double> alphas,
                              std::span<const Vec3> pred, std::span<const double> coeff,
                              std::vector<Vec3>* forces) {
  assert(points.size() == alphas.size() + 1);
  // sum alpha_i x_i - x_0, from the differences x_i - x_0 (the alphas sum to 1).
  Vec3 offset = Vec3::Zero();
  double denominator = coeff[0];
  for (size_t k = 0; k < alphas.size(); ++k) {
    offset += alphas[k] * (pred[points[k + 1]] - pred[points[0]]);
    denominator += coeff[k + 1] * alphas[k] * alphas[k];
  }
  const Vec3 f0 = offset / denominator;
  forces->resize(points.size());
  (*forces)[0] = f0;
  for (size_t k = 0; k < alphas.size(); ++k) (*forces)[k + 1] = -alphas[k] * f0;
}

}  // namespace

SurfacePoint ClosestSurfacePoint(const SurfaceMesh& surface, std::span<const Vec3> x,
                                 const Vec3& p, int skip_point) {
  SurfacePoint best;
  best.distance = std::numeric_limits<double>::infinity();
  for (int t = 0; t < static_cast<int>(surface.triangles.size()); ++t) {
    const auto& tri = surface.triangles[t];
    if (tri[0] == skip_point || tri[1] == skip_point || tri[2] == skip_point) continue;
    const Vec3 bary = ClosestPointBarycentric(p, x[tri[0]], x[tri[1]], x[tri[2]]);
    const Vec3 q = bary[0] * x[tri[0]] + bary[1] * x[tri[1]] + bary[2] * x[tri[2]];
    const double distance = (q - p).norm();
    if (distance < best.distance) {
      best.triangle = t;
      best.barycentric = bary;
      best.distance = distance;
    }
  }
  return best;
}

absl::Status LocalConstraintSet::GrowPoints(int num_points) {
  if (num_points < num_points_) {
    return absl::InvalidArgumentError(absl::StrCat("num_points: ", num_points, " is fewer than ",
                                                   num_points_));
  }
  num_points_ = num_points;
  return absl::OkStatus();
}

// Checks indices (in range, distinct within the constraint) and stores the constraint.
absl::StatusOr<int> LocalConstraintSet::Add(Constraint constraint) {
  std::vector<int> sorted = constraint.points;
  for (int p : sorted) {
    if (p < 0 || p >= num_points_) {
      return absl::InvalidArgumentError(
          absl::StrCat("point ", p, " out of range [0, ", num_points_, ")"));
    }
  }
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return absl::InvalidArgumentError("points: a point appears twice in one constraint");
  }
  constraints_.push_back(std::move(constraint));
  return static_cast<int>(constraints_.size()) - 1;
}

absl::StatusOr<int> LocalConstraintSet::AddNail(int point, const Vec3& goal) {
  Constraint c;
  c.type = LocalConstraintType::kNail;
  c.points = {point};
  c.goal = goal;
  return Add(std::move(c));
}

absl::StatusOr<int> LocalConstraintSet::AddMovingNail(int point,
                                                      std::function<Vec3(double)> path) {
  if (!path) return absl::InvalidArgumentError("path: empty");
  Constraint c;
  c.type = LocalConstraintType::kNail;
  c.points = {point};
  c.path = std::move(path);
  return Add(std::move(c));
}

absl::StatusOr<int> LocalConstraintSet::AddPointsToPoint(std::vector<int> points) {
  if (points.size() < 2) return absl::InvalidArgumentError("points: need at least two");
  Constraint c;
  c.type = LocalConstraintType::kPointsToPoint;
  c.points = std::move(points);
  return Add(std::move(c));
}

absl::StatusOr<int> LocalConstraintSet::AddPointToLine(int point, int a, int b) {
  Constraint c;
  c.type = LocalConstraintType::kPointToLine;
  c.points = {point, a, b};
  return Add(std::move(c));
}

absl::StatusOr<int> LocalConstraintSet::AddPointToTriangle(int point, int a, int b, int c) {
  Constraint k;
  k.type = LocalConstraintType::kPointToTriangle;
  k.points = {point, a, b, c};
  return Add(std::move(k));
}

absl::StatusOr<int> LocalConstraintSet::AddPointToTetrahedron(int point, int a, int b, int c,
                                                              int d) {
  Constraint k;
  k.type = LocalConstraintType::kPointToTetrahedron;
  k.points = {point, a, b, c, d};
  return Add(std::move(k));
}

absl::StatusOr<int> LocalConstraintSet::AddPointToSurface(int point, SurfaceMesh surface) {
  if (surface.triangles.empty()) return absl::InvalidArgumentError("surface: no triangles");
  for (const auto& tri : surface.triangles) {
    for (int v : tri) {
      if (v < 0 || v >= num_points_) {
        return absl::InvalidArgumentError(
            absl::StrCat("surface: point ", v, " out of range [0, ", num_points_, ")"));
      }
    }
  }
  Constraint c;
  c.type = LocalConstraintType::kPointToSurface;
  c.points = {point};
  c.surface = std::move(surface);
  return Add(std::move(c));
}

LocalConstraintSet::Switches LocalConstraintSet::SaveSwitches(int id) const {
  const Constraint& c = constraints_[id];
  return {c.enabled, c.ramp_steps, c.ramp_count, c.goal};
}

void LocalConstraintSet::RestoreSwitches(int id, const Switches& s) {
  Constraint& c = constraints_[id];
  c.enabled = s.enabled;
  c.ramp_steps = s.ramp_steps;
  c.ramp_count = s.ramp_count;
  if (c.type == LocalConstraintType::kNail) c.goal = s.goal;
}

absl::Status LocalConstraintSet::SetEnabled(int id, bool enabled) {
  if (id < 0 || id >= size()) return absl::InvalidArgumentError(absl::StrCat("id ", id));
  Constraint& c = constraints_[id];
  if (enabled && !c.enabled) c.ramp_count = 0;
  c.enabled = enabled;
  return absl::OkStatus();
}

absl::Status LocalConstraintSet::SetNailGoal(int id, const Vec3& goal) {
  if (id < 0 || id >= size()) return absl::InvalidArgumentError(absl::StrCat("id ", id));
  if (constraints_[id].type != LocalConstraintType::kNail) {
    return absl::InvalidArgumentError(absl::StrCat("id ", id, ": not a nail"));
  }
  constraints_[id].goal = goal;
  constraints_[id].path = nullptr;
  return absl::OkStatus();
}

absl::Status LocalConstraintSet::SetSelfAssembly(int id, int steps) {
  if (id < 0 || id >= size()) return absl::InvalidArgumentError(absl::StrCat("id ", id));
  if (steps < 0) return absl::InvalidArgumentError("steps: must be >= 0");
  constraints_[id].ramp_steps = steps;
  constraints_[id].ramp_count = 0;
  return absl::OkStatus();
}

// One prediction for all constraints (they do not share points, and a force on one point
// moves only that point's predicted position), then each constraint's forces.
absl::StatusOr<std::vector<Vec3>> LocalConstraintSet::ComputeForces(
    Integrator integrator, const MassPointModel& model, const Vec3& gravity, double h, double time,
    const MassPointState& state, std::span<const Vec3> external, GivenPositions* reached) {
  if (model.points() != num_points_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model: ", model.points(), " points; the constraints were made for ", num_points_));
  }
  std::vector<Vec3> forces(num_points_, Vec3::Zero());
  if (reached != nullptr) {
    reached->given.assign(num_points_, 0);
    reached->x.assign(num_points_, Vec3::Zero());
  }
  bool any = false;
  for (const Constraint& c : constraints_) any = any || c.enabled;
  if (!any) return forces;

  absl::StatusOr<std::vector<Vec3>> predicted =
      PredictConstrainedPositions(integrator, model, gravity, h, external, state);
  if (!predicted.ok()) return predicted.status();
  const std::vector<Vec3>& pred = *predicted;
  const double target_time = time + ConstraintLeadSteps(integrator) * h;
  const std::vector<Vec3>& x = state.x;

  std::vector<char> used(num_points_, 0);
  std::vector<double> coeff;
  for (int id = 0; id < size(); ++id) {
    Constraint& c = constraints_[id];
    LocalConstraintReport& r = c.report;
    r = LocalConstraintReport();
    if (!c.enabled) continue;

    // The involved points and, for point-to-X, the alphas from the positions at t.
    r.points = c.points;
    switch (c.type) {
      case LocalConstraintType::kNail:
      case LocalConstraintType::kPointsToPoint:
        break;
      case LocalConstraintType::kPointToLine: {
        const Vec3 ab = x[c.points[2]] - x[c.points[1]];
        const double len2 = ab.squaredNorm();
        const double s = len2 > 0.0
            ? std::clamp((x[c.points[0]] - x[c.points[1]]).dot(ab) / len2, 0.0, 1.0)
            : 0.5;
        r.alphas = {1.0 - s, s};
        break;
      }
      case LocalConstraintType::kPointToTriangle: {
        const Vec3 b = ClosestPointBarycentric(x[c.points[0]], x[c.points[1]],
                                               x[c.points[2]], x[c.points[3]]);
        r.alphas = {b[0], b[1], b[2]};
        break;
      }
      case LocalConstraintType::kPointToTetrahedron: {
        const auto b = TetBarycentric(x[c.points[0]], x[c.points[1]], x[c.points[2]],
                                      x[c.points[3]], x[c.points[4]]);
        r.alphas.assign(b.begin(), b.end());
        break;
      }
      case LocalConstraintType::kPointToSurface: {
        const SurfacePoint sp = ClosestSurfacePoint(c.surface, x, x[c.points[0]], c.points[0]);
        if (sp.triangle < 0) continue;
        const auto& tri = c.surface.triangles[sp.triangle];
        r.points = {c.points[0], tri[0], tri[1], tri[2]};
        r.alphas = {sp.barycentric[0], sp.barycentric[1], sp.barycentric[2]};
        break;
      }
    }
    for (int p : r.points) {
      if (used[p]) {
        return absl::FailedPreconditionError(
            absl::StrCat("constraint ", id, ": point ", p,
                         " is already in another enabled constraint"));
      }
      used[p] = 1;
    }

    coeff.resize(r.points.size());
    for (size_t k = 0; k < r.points.size(); ++k) {
      coeff[k] = ConstraintCoefficient(integrator, h, model.masses()[r.points[k]]);
      assert(coeff[k] > 0.0);
    }

    switch (c.type) {
      case LocalConstraintType::kNail: {
        const Vec3 goal = c.path ? c.path(target_time) : c.goal;
        r.full_forces = {(goal - pred[r.points[0]]) / coeff[0]};
        break;
      }
      case LocalConstraintType::kPointsToPoint: {
        // The joint position: the average of the predictions weighted by 1 / c_i. Taken
        // relative to the first prediction, so that the forces are built from the small
        // differences and sum to zero to round-off in those, not in the positions.
        const Vec3 origin = pred[r.points[0]];
        Vec3 weighted = Vec3::Zero();
        double weight = 0.0;
        for (size_t k = 0; k < r.points.size(); ++k) {
          weighted += (pred[r.points[k]] - origin) / coeff[k];
          weight += 1.0 / coeff[k];
        }
        const Vec3 joint = weighted / weight;
        r.full_forces.resize(r.points.size());
        for (size_t k = 0; k < r.points.size(); ++k) {
          r.full_forces[k] = (joint - (pred[r.points[k]] - origin)) / coeff[k];
        }
        break;
      }
      default:
        PointToCombinationForces(r.points, r.alphas, pred, coeff, &r.full_forces);
        break;
    }

    // Self-assembly: j / n of the force on the j-th evaluation.
    if (c.ramp_steps > 0) {
      c.ramp_count = std::min(c.ramp_count + 1, c.ramp_steps);
      r.scale = static_cast<double>(c.ramp_count) / c.ramp_steps;
    }
    for (size_t k = 0; k < r.points.size(); ++k) {
      const int p = r.points[k];
      forces[p] += r.scale * r.full_forces[k];
      if (reached != nullptr) {
        reached->given[p] = 1;
        reached->x[p] = pred[p] + coeff[k] * forces[p];
      }
    }
    r.evaluated = true;
  }
  return forces;
}

absl::Status StepWithConstraints(Integrator integrator, const MassPointModel& model,
                                 const Vec3& gravity, double h, double time,
                                 LocalConstraintSet& constraints, MassPointState* state) {
  GivenPositions reached;
  absl::StatusOr<std::vector<Vec3>> forces =
      constraints.ComputeForces(integrator, model, gravity, h, time, *state, {}, &reached);
  if (!forces.ok()) return forces.status();
  if (integrator == Integrator::kImplicitEuler) {
    return StepImplicitEulerTo(model, gravity, h, *forces, reached, state);
  }
  return Step(integrator, model, gravity, h, *forces, state);
}

}  // namespace ligature
