#pragma once
// Time integrators for the mass-point model, and their generic representation (Gissler,
// Becker and Teschner 2006, eq. 1):
//
//   x_i^{t+h} = A_i s_i^t + c_i F_i^t,    v_i^{t+h} = B_i s_i^t + d_i F_i^t
//
// with s_i the per-point state (x, v), or (x, x^{t-h}) for Verlet. Local constraints need
// c_i: a force F~ on point i held constant over the step moves x_i^{t+h} by exactly c_i F~
// in every scheme here, so a constraint force is (goal - predicted x) / c_i.
//
// External forces (constraint forces, user forces) passed to Step are constant over the
// step and added at every force evaluation. Gravity is passed separately.
//
// Which scheme is exact on constant acceleration (free fall): midpoint, RK2 (Heun) and
// Verlet (second order, their position update is x + h v + h^2/2 a). The three Euler
// schemes are first order: explicit Euler lands h^2 g n (n - 1) / 2 after n steps,
// semi-implicit and implicit Euler h^2 g n (n + 1) / 2, instead of h^2 g n^2 / 2.

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/mass_point_model.h"

namespace ligature {

enum class Integrator {
  kExplicitEuler,      // x += h v, v += h a (both from time t)
  kImplicitEuler,      // one linearized backward Euler step (see Step)
  kSemiImplicitEuler,  // Euler-Cromer: v += h a, then x += h v (new v)
  kMidpoint,           // explicit midpoint
  kRungeKutta2,        // Heun: Euler predictor, trapezoidal corrector
  kVerlet,             // position Verlet with the central-difference velocity
};

inline constexpr std::array<Integrator, 6> kAllIntegrators = {
    Integrator::kExplicitEuler, Integrator::kImplicitEuler, Integrator::kSemiImplicitEuler,
    Integrator::kMidpoint,      Integrator::kRungeKutta2,   Integrator::kVerlet};

std::string_view IntegratorName(Integrator integrator);

// Advances `state` by h. `external` holds one force per point (or is empty for none).
// The model's held points stay where they are with zero velocity (forces on them are
// ignored); the others move against them as fixed supports in every scheme.
//
// Implicit Euler: one linearized backward Euler step of the model's elastic and damping
// forces with the full sparse Jacobians (analytic; see ElasticStiffness):
//   (M - h^2 K - h D) dv = h (F_int + M g + h K v),   solved with SimplicialLDLT,
//   v^{t+h} = v + dv + h F_ext / m,                  x^{t+h} = x + h v^{t+h},
// with a held point's rows and columns the identity (its dv is zero). Gravity is in the
// solve: with held points, a uniform fall of the others is not in K's null space, and the
// body settles where its elastic forces carry its weight. External forces have no Jacobian;
// they enter the velocity explicitly, so c_i = h^2 / m_i exactly, as in the paper's eq. 10.
//
// Verlet: on its first step (state.x_prev empty) x^{t-h} is set to x - h v + h^2/(2m) F
// with the model's forces and gravity (Taylor start, so constant acceleration is exact).
// The velocity is the paper's eq. 2, (x^{t+h} - x^{t-h}) / (2h). Keep h constant.
//
// Fails on h <= 0 or mismatched sizes, or when the implicit system cannot be factored.
absl::Status Step(Integrator integrator, const MassPointModel& model, const Vec3& gravity,
                  double h, std::span<const Vec3> external, MassPointState* state);

// Positions some points must reach at the end of a step: given[i] marks them, x[i] is
// where (both sized to the model's points).
struct GivenPositions {
  std::vector<char> given;
  std::vector<Vec3> x;  // m
};

// One implicit Euler step in which the given points are not solved for: they land exactly
// on their positions (with the velocity that takes them there) and the other points are
// solved against their motion, so the elastic forces the given points feel reach their
// neighbours within the step. External forces on given points are ignored. With no point
// given this is Step(kImplicitEuler, ...).
absl::Status StepImplicitEulerTo(const MassPointModel& model, const Vec3& gravity, double h,
                                 std::span<const Vec3> external, const GivenPositions& to,
                                 MassPointState* state);

// c_i of eq. 1: how a force on point i, constant over the step, moves x_i^{t+h}.
//   explicit Euler 0, implicit / semi-implicit Euler and Verlet h^2/m, midpoint and RK2
//   h^2/(2m).
double PositionForceCoefficient(Integrator integrator, double h, double mass);

// d_i of eq. 1: how such a force changes v_i^{t+h} (Verlet h/(2m), the others h/m).
double VelocityForceCoefficient(Integrator integrator, double h, double mass);

// Steps ahead at which a force applied now first changes the position: 1, except for
// explicit Euler (x^{t+h} = x + h v does not see F^t), where it is 2. Constraints in
// explicit Euler therefore aim at x^{t+2h} = x^{t+h} + h v^{t+h}, where the force enters
// with coefficient h^2/m (ConstraintCoefficient).
int ConstraintLeadSteps(Integrator integrator);

// The coefficient of a constraint force in the position the constraint aims at: c_i, or
// h^2/m for explicit Euler (the position two steps ahead). Always > 0.
double ConstraintCoefficient(Integrator integrator, double h, double mass);

// The positions of all points at the constraint time (t + h; t + 2h for explicit Euler)
// as the integrator computes them with the given external forces: a trial step on a copy
// of the state (two for explicit Euler, where the second step's forces do not matter).
absl::StatusOr<std::vector<Vec3>> PredictConstrainedPositions(
    Integrator integrator, const MassPointModel& model, const Vec3& gravity, double h,
    std::span<const Vec3> external, const MassPointState& state);

// The generic form of eq. 1 for one point: A and B act on the point's state vector
// (GenericStateVector), c and d on its force. `jacobian` is J_F(x_i), the point's own 3x3
// block of dF/dx, used by RK2 and implicit Euler (eqs. 8 and 10, first-order
// approximations there; the v part of RK2's B carries the identity, which the printed
// eq. 8 leaves out). For the other schemes the form is exact.
struct GenericForm {
  Eigen::Matrix<double, 3, 6> a;
  Eigen::Matrix<double, 3, 6> b;
  double c = 0.0;
  double d = 0.0;
};
GenericForm MakeGenericForm(Integrator integrator, double h, double mass,
                            const Mat3& jacobian = Mat3::Zero());

// s_i of eq. 1: (x_i, v_i), or (x_i, x_i^{t-h}) for Verlet (state.x_prev must be set).
Vec6 GenericStateVector(Integrator integrator, const MassPointState& state, int i);

}  // namespace ligature
