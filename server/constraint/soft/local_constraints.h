#pragma once
// Local constraints for mass-point deformable models (Gissler, Becker and Teschner 2006).
// Each constraint computes forces F~ that, added to the point forces for one step, make
// the constraint hold exactly after that step under whichever integrator is used: the
// unconstrained positions x^{t+h} are predicted with the integrator itself, and a force
// moves a point's position by exactly c_i F~ (see integrators.h), so
//
//   point-to-nail       F~ = (goal - x^{t+h}) / c                         (eq. 14)
//   points-to-point     F~_i = (y - x_i^{t+h}) / c_i,
//                       y = sum (x_j^{t+h} / c_j) / sum (1 / c_j)        (eq. 22; sum F~ = 0)
//   point-to-line / triangle / tetrahedron / surface, y = sum alpha_i x_i:
//                       F~_0 = (sum alpha_i x_i^{t+h} - x_0^{t+h}) / (c_0 + sum c_i alpha_i^2),
//                       F~_i = -alpha_i F~_0                               (eq. 28)
//
// The alphas are recomputed at every step from the current positions: the projection on
// the segment, the closest point on the triangle, the barycentric coordinates in the tet
// (not clamped; plausible when the point is inside), the closest point on the surface.
//
// For explicit Euler, x^{t+h} does not depend on the forces at t; the constraint aims one
// step further (x^{t+2h}), so it holds from the second step on, or from the first when it
// already holds at the start with consistent velocities (e.g. a nail at a resting point).
//
// Constraints must not conflict: a point may belong to at most one enabled constraint in
// an evaluation (checked). Constraints can be switched on and off; a constraint with
// self-assembly applies j/n of its force on the j-th evaluation after it was enabled
// (j = 1..n), then the full force.

#include <array>
#include <functional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/geometry/triangle_point.h"
#include "server/math/types.h"
#include "server/model/soft/integrators.h"
#include "server/model/soft/mass_point_model.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

enum class LocalConstraintType {
  kNail,
  kPointsToPoint,
  kPointToLine,
  kPointToTriangle,
  kPointToTetrahedron,
  kPointToSurface,
};

// What the last evaluation of one constraint did.
struct LocalConstraintReport {
  bool evaluated = false;
  std::vector<int> points;      // involved points; for point-to-X the point first
  std::vector<double> alphas;   // point-to-X: weights of points[1..]
  std::vector<Vec3> full_forces;  // the exact constraint forces, per involved point
  double scale = 1.0;           // self-assembly factor applied to them (j / n, or 1)
};

// Closest point of a surface (triangles over the positions x) to p, brute force over all
// triangles; triangles that use `skip_point` are ignored (-1: none). triangle is -1 when
// no triangle qualifies.
struct SurfacePoint {
  int triangle = -1;
  Vec3 barycentric = Vec3::Zero();
  double distance = 0.0;
};
SurfacePoint ClosestSurfacePoint(const SurfaceMesh& surface, std::span<const Vec3> x,
                                 const Vec3& p, int skip_point = -1);

class LocalConstraintSet {
 public:
  explicit LocalConstraintSet(int num_points) : num_points_(num_points) {}

  // Each Add returns the constraint's id; fails on bad or repeated indices.
  absl::StatusOr<int> AddNail(int point, const Vec3& goal);
  // A nail whose goal follows path(time); evaluated at the constraint's target time.
  absl::StatusOr<int> AddMovingNail(int point, std::function<Vec3(double)> path);
  absl::StatusOr<int> AddPointsToPoint(std::vector<int> points);
  absl::StatusOr<int> AddPointToLine(int point, int a, int b);
  absl::StatusOr<int> AddPointToTriangle(int point, int a, int b, int c);
  absl::StatusOr<int> AddPointToTetrahedron(int point, int a, int b, int c, int d);
  // The surface's triangles index the model's points; triangles through `point` are
  // ignored.
  absl::StatusOr<int> AddPointToSurface(int point, SurfaceMesh surface);

  // Switching on restarts self-assembly. A nail's goal can be moved at any time.
  absl::Status SetEnabled(int id, bool enabled);
  absl::Status SetNailGoal(int id, const Vec3& goal);
  // Ramp the force over n evaluations (n >= 1; 0 switches self-assembly off).
  absl::Status SetSelfAssembly(int id, int steps);

  // Points were appended to the model (a cut duplicated vertices): the constraints keep
  // their points. INVALID_ARGUMENT when the count would shrink.
  absl::Status GrowPoints(int num_points);
  int size() const { return static_cast<int>(constraints_.size()); }
  bool enabled(int id) const { return constraints_[id].enabled; }
  const LocalConstraintReport& report(int id) const { return constraints_[id].report; }
  LocalConstraintType type(int id) const { return constraints_[id].type; }

  // What changes of a constraint once it is added (snapshots): its switch, its
  // self-assembly ramp and, for a nail, its goal.
  struct Switches {
    bool enabled = true;
    int ramp_steps = 0;        // >= 0
    int ramp_count = 0;        // in [0, ramp_steps]
    Vec3 goal = Vec3::Zero();  // m, nails only
  };
  Switches SaveSwitches(int id) const;
  // Takes `s`, checked by the caller (a goal is taken by a nail only).
  void RestoreSwitches(int id, const Switches& s);

  // The constraint forces for the step from `time` to time + h (one per point, zero for
  // points in no constraint). `external` are the other non-model forces of that step (or
  // empty); the constraint forces are to be added to them. Fails on a model of another
  // size, conflicting constraints, or a failing prediction. `reached`, when given, is set
  // to where those forces put the constrained points at the constraint time.
  absl::StatusOr<std::vector<Vec3>> ComputeForces(Integrator integrator,
                                                  const MassPointModel& model, const Vec3& gravity,
                                                  double h, double time,
                                                  const MassPointState& state,
                                                  std::span<const Vec3> external = {},
                                                  GivenPositions* reached = nullptr);

 private:
  struct Constraint {
    LocalConstraintType type = LocalConstraintType::kNail;
    bool enabled = true;
    std::vector<int> points;
    Vec3 goal = Vec3::Zero();
    std::function<Vec3(double)> path;
    SurfaceMesh surface;
    int ramp_steps = 0;
    int ramp_count = 0;
    LocalConstraintReport report;
  };

  absl::StatusOr<int> Add(Constraint constraint);

  int num_points_;
  std::vector<Constraint> constraints_;
};

// Constraint forces plus one integrator step, at `time`. Under implicit Euler the step
// takes the constrained points to where their forces put them (StepImplicitEulerTo), so
// their neighbours are solved against their motion rather than as if they were free.
absl::Status StepWithConstraints(Integrator integrator, const MassPointModel& model,
                                 const Vec3& gravity, double h, double time,
                                 LocalConstraintSet& constraints, MassPointState* state);

}  // namespace ligature
