#pragma once
// A rod (a deformable one-dimensional element): a clamped cubic B-spline centreline over
// its rest arc length u in [0, length], with a twist angle blended by the same basis.
// Degrees of freedom, per control point i: its position x_i (3) and twist theta_i (1), so
// x(u) = sum b_i(u) x_i and theta(u) = sum b_i(u) theta_i, with smooth tangents x'(u).
//
// Energies (isotropic circular cross-section of radius r), relative to a rest shape x_r(u)
// (straight unless given) and a rest twist rate tau:
//   stretching  1/2 E A  int (|x'| - |x_r'|)^2 du
//   bending     1/2 E I  int |x'' - R x_r''|^2 du  (|x'| ~ 1; R per segment, the rotation
//                                              that minimizes it, so turning the rod as a
//                                              whole costs nothing; x_r'' = 0 if straight)
//   twisting    1/2 G J  int (theta' - tau)^2 du (twist about the tangent, relative to the
//                                              parallel-transported frame)
// with A = pi r^2, I = pi r^4 / 4, J = pi r^4 / 2. Bending is the linear (small-strain)
// curvature energy, exact for the cantilever and catenary regimes the rod is used in and
// constant in time (a curved rest shape only adds a force, R times the rest curvature's,
// so the stiffness stays constant: the displacement-based form K dX = F is kept, with K
// exact for small rotations of each segment); stretching is non-linear and linearized each step. The mass matrix is
// the consistent one, rho A int b_i b_j du (rho J for twist).
//
// The model is constant; RodState is what changes.

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/geometry/collision_filter.h"
#include "server/math/types.h"
#include "server/model/rod/bspline.h"

namespace ligature {

struct RodMaterial {
  double radius = 0.005;        // m, > 0
  double density = 1000.0;      // kg/m^3, > 0
  double young = 1.0e9;         // Pa (stretching and bending), > 0
  double shear = 4.0e8;         // Pa (twisting), > 0
  double damping = 0.0;         // 1/s, mass-proportional (air drag like), >= 0
  double stiffness_damping = 0.0;  // s, proportional to the elastic stiffness, >= 0
};

struct RodDesc {
  std::string id;
  // Initial shape, world frame: a polyline of >= 2 points; its length is the rest length.
  std::vector<Vec3> points;
  // The shape the rod returns to without loads, world frame (a polyline of >= 2 points
  // whose length is then the rest length; `points` is resampled over its own length, so a
  // rod may start stretched). Empty: straight, of the length of `points`.
  std::vector<Vec3> rest_points;
  double rest_twist = 0.0;  // rad/m, the twist rate at rest
  int control_points = 0;  // >= 4; 0 picks one per 2 cm, at least 8 and at most 400
  RodMaterial material;
  bool kinematic = false;  // held in place (moved only through constraints' targets)
  // Collides with the other rods that do (and whose layers meet its own), and with itself.
  bool rod_contact = false;
  // Its layers and mask, against rigid shapes, other rods, soft bodies and queries (not
  // a sensor: a rod is never one).
  CollisionFilter collision;
  // Coulomb coefficient against rigid shapes (combined with the shape's as the geometric
  // mean), >= 0; used where the rods meet rigid bodies through the world's Gauss-Seidel.
  double friction = 0.5;
};

// One quadrature point of the energy and mass integrals.
struct RodQuadrature {
  double u = 0.0;        // m
  double weight = 0.0;   // m
  SplineSample basis;
  double rest_slope = 1.0;  // |x_r'(u)|
};

class RodModel {
 public:
  static constexpr int kDofsPerPoint = 4;  // x, y, z, theta

  // Fails on a degenerate shape (fewer than two distinct points) or bad counts.
  static absl::StatusOr<RodModel> Make(const RodDesc& desc);

  const CubicBSpline& spline() const { return spline_; }
  const RodMaterial& material() const { return material_; }
  int control_points() const { return spline_.control_points(); }
  int dofs() const { return kDofsPerPoint * control_points(); }
  double length() const { return spline_.length(); }
  double mass() const;  // kg
  const std::vector<RodQuadrature>& quadrature() const { return quadrature_; }
  // Three Gauss points per segment for the stretching energy, the one integral redone
  // every step: exact for its Hessian's basis-slope products (degree 4) wherever the
  // tangent's length and direction are uniform over a segment, as they are along a taut
  // or hanging rope.
  const std::vector<RodQuadrature>& stretch_quadrature() const { return stretch_quadrature_; }

  // A curved rest shape: its control points, and per segment s the rest bending force
  // int b_{s+a}'' x_r'' du (a = 0..3), which each step rotates with the segment.
  bool curved() const { return !rest_x_.empty(); }
  const std::vector<Vec3>& rest_points() const { return rest_x_; }
  const std::vector<std::array<Vec3, 4>>& rest_bending() const { return rest_bending_; }
  double rest_twist() const { return rest_twist_; }

  // Section constants.
  double area() const;          // m^2
  double bend_inertia() const;  // m^4
  double polar_inertia() const; // m^4

 private:
  CubicBSpline spline_;
  RodMaterial material_;
  std::vector<RodQuadrature> quadrature_;
  std::vector<RodQuadrature> stretch_quadrature_;
  std::vector<Vec3> rest_x_;
  std::vector<std::array<Vec3, 4>> rest_bending_;
  double rest_twist_ = 0.0;
};

struct RodState {
  std::vector<Vec3> x;         // control points, m
  std::vector<double> theta;   // twist at the control points, rad
  std::vector<Vec3> v;         // m/s
  std::vector<double> omega;   // rad/s

  Vec3 Position(const SplineSample& s) const;
  Vec3 Tangent(const SplineSample& s) const;    // x'(u), not normalized
  Vec3 Curvature(const SplineSample& s) const;  // x''(u)
  double Twist(const SplineSample& s) const;
};

// Control points of a rod laid along `points` (the polyline, resampled by arc length at
// the Greville abscissae, scaled to the polyline's own length), still, with its rest twist.
RodState InitialRodState(const RodModel& model, const std::vector<Vec3>& points);

// Per segment, the rotation that best turns its rest curvature x_r'' onto the current x''
// over its quadrature points (Kabsch); identity where the rest shape is straight.
std::vector<Mat3> SegmentRotations(const RodModel& model, const RodState& state);

}  // namespace ligature
