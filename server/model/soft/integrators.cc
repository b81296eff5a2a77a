// The six integrators for the mass-point model and their generic representation.

#include "server/model/soft/integrators.h"

#include <cassert>
#include <utility>
#include <vector>

#include <Eigen/SparseCholesky>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Model forces (elastic, damping, gravity) plus the external forces, if any.
void TotalForces(const MassPointModel& model, std::span<const Vec3> x,
                 std::span<const Vec3> v, const Vec3& gravity, std::span<const Vec3> external,
                 std::vector<Vec3>* forces) {
  ComputeForces(model, x, v, gravity, forces);
  if (!external.empty()) {
    for (size_t i = 0; i < forces->size(); ++i) (*forces)[i] += external[i];
  }
}

void StepExplicitEuler(const MassPointModel& model, const Vec3& g, double h,
                       std::span<const Vec3> external, MassPointState& s) {
  std::vector<Vec3> f;
  TotalForces(model, s.x, s.v, g, external, &f);
  for (int i = 0; i < model.points(); ++i) {
    if (model.held(i)) continue;
    s.x[i] += h * s.v[i];
    s.v[i] += h / model.masses()[i] * f[i];
  }
}

void StepSemiImplicitEuler(const MassPointModel& model, const Vec3& g, double h,
                           std::span<const Vec3> external, MassPointState& s) {
  std::vector<Vec3> f;
  TotalForces(model, s.x, s.v, g, external, &f);
  for (int i = 0; i < model.points(); ++i) {
    if (model.held(i)) continue;
    s.v[i] += h / model.masses()[i] * f[i];
    s.x[i] += h * s.v[i];
  }
}

// Midpoint: the half-step state from the forces at t, the full step with the derivative
// at the half step: x += h v_mid (= h v + h^2/(2m) F^t), v += h a_mid.
void StepMidpoint(const MassPointModel& model, const Vec3& g, double h,
                  std::span<const Vec3> external, MassPointState& s) {
  const int n = model.points();
  std::vector<Vec3> f, xm(n), vm(n);
  TotalForces(model, s.x, s.v, g, external, &f);
  for (int i = 0; i < n; ++i) {
    const double step = model.held(i) ? 0.0 : h;
    xm[i] = s.x[i] + 0.5 * step * s.v[i];
    vm[i] = s.v[i] + 0.5 * step / model.masses()[i] * f[i];
  }
  TotalForces(model, xm, vm, g, external, &f);
  for (int i = 0; i < n; ++i) {
    if (model.held(i)) continue;
    s.x[i] += h * vm[i];
    s.v[i] += h / model.masses()[i] * f[i];
  }
}

// Heun: an Euler predictor (x + h v, v + h a), then the average of both slopes:
// x += h/2 (v + v_p) (= h v + h^2/(2m) F^t), v += h/2 (a + a_p).
void StepRungeKutta2(const MassPointModel& model, const Vec3& g, double h,
                     std::span<const Vec3> external, MassPointState& s) {
  const int n = model.points();
  std::vector<Vec3> f1, f2, xp(n), vp(n);
  TotalForces(model, s.x, s.v, g, external, &f1);
  for (int i = 0; i < n; ++i) {
    const double step = model.held(i) ? 0.0 : h;
    xp[i] = s.x[i] + step * s.v[i];
    vp[i] = s.v[i] + step / model.masses()[i] * f1[i];
  }
  TotalForces(model, xp, vp, g, external, &f2);
  for (int i = 0; i < n; ++i) {
    if (model.held(i)) continue;
    s.x[i] += 0.5 * h * (s.v[i] + vp[i]);
    s.v[i] += 0.5 * h / model.masses()[i] * (f1[i] + f2[i]);
  }
}

// Verlet (eq. 2), with the Taylor start when x_prev is not set yet. The start uses the
// model's forces and gravity only, so external forces enter with exactly h^2/m.
void StepVerlet(const MassPointModel& model, const Vec3& g, double h,
                std::span<const Vec3> external, MassPointState& s) {
  const int n = model.points();
  std::vector<Vec3> f;
  if (static_cast<int>(s.x_prev.size()) != n) {
    ComputeForces(model, s.x, s.v, g, &f);
    s.x_prev.resize(n);
    for (int i = 0; i < n; ++i) {
      s.x_prev[i] =
          model.held(i) ? s.x[i] : s.x[i] - h * s.v[i] + 0.5 * h * h / model.masses()[i] * f[i];
    }
  }
  TotalForces(model, s.x, s.v, g, external, &f);
  for (int i = 0; i < n; ++i) {
    if (model.held(i)) continue;
    const Vec3 next = 2.0 * s.x[i] - s.x_prev[i] + h * h / model.masses()[i] * f[i];
    s.v[i] = (next - s.x_prev[i]) / (2.0 * h);
    s.x_prev[i] = s.x[i];
    s.x[i] = next;
  }
}

// One linearized backward Euler step; see the header for the equations. Held points and
// given points (`to`, may be null) have known velocity changes: their rows and columns
// become the identity with that change on the right, and the other rows take their
// coupling to them over to the right-hand side, so the neighbours are solved against
// their motion.
absl::Status StepImplicitEuler(const MassPointModel& model, const Vec3& g, double h,
                               std::span<const Vec3> external, const GivenPositions* to,
                               MassPointState& s) {
  const int n = model.points();
  std::vector<Vec3> f_int;
  ComputeForces(model, s.x, s.v, Vec3::Zero(), &f_int);
  const Eigen::SparseMatrix<double> k = ElasticStiffness(model, s.x);
  const Eigen::SparseMatrix<double> d = DampingJacobian(model, s.x);
  Eigen::SparseMatrix<double> mass(3 * n, 3 * n);
  std::vector<Eigen::Triplet<double>> diag;
  diag.reserve(3 * n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) diag.emplace_back(3 * i + c, 3 * i + c, model.masses()[i]);
  }
  mass.setFromTriplets(diag.begin(), diag.end());
  Eigen::SparseMatrix<double> system = mass - (h * h) * k - h * d;

  Eigen::VectorXd v(3 * n), rhs(3 * n), known = Eigen::VectorXd::Zero(3 * n);
  std::vector<char> fixed(n, 0);
  bool any_fixed = false;
  for (int i = 0; i < n; ++i) {
    v.segment<3>(3 * i) = s.v[i];
    if (to != nullptr && to->given[i]) {
      fixed[i] = 1;
      known.segment<3>(3 * i) = (to->x[i] - s.x[i]) / h - s.v[i];
    } else if (model.held(i)) {
      fixed[i] = 1;
    }
    any_fixed = any_fixed || fixed[i];
  }
  const Eigen::VectorXd kv = k * v;
  const Eigen::VectorXd coupling =
      any_fixed ? Eigen::VectorXd(system * known) : Eigen::VectorXd::Zero(3 * n);
  for (int i = 0; i < n; ++i) {
    rhs.segment<3>(3 * i) =
        fixed[i]
            ? Eigen::Vector3d(known.segment<3>(3 * i))
            : Eigen::Vector3d(h * (f_int[i] + model.masses()[i] * g + h * kv.segment<3>(3 * i)) -
                              coupling.segment<3>(3 * i));
  }
  if (any_fixed) {
    system.prune([&](Eigen::Index row, Eigen::Index col, double) {
      return !(fixed[row / 3] || fixed[col / 3]);
    });
    for (int i = 0; i < n; ++i) {
      if (!fixed[i]) continue;
      for (int c = 0; c < 3; ++c) system.coeffRef(3 * i + c, 3 * i + c) = 1.0;
    }
  }
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(system);
  if (solver.info() != Eigen::Success) {
    return absl::InternalError("implicit Euler: the system matrix could not be factored");
  }
  const Eigen::VectorXd dv = solver.solve(rhs);
  if (solver.info() != Eigen::Success) {
    return absl::InternalError("implicit Euler: the linear solve failed");
  }
  for (int i = 0; i < n; ++i) {
    if (to != nullptr && to->given[i]) {
      s.v[i] = (to->x[i] - s.x[i]) / h;
      s.x[i] = to->x[i];
      continue;
    }
    if (model.held(i)) continue;
    Vec3 explicit_part = Vec3::Zero();
    if (!external.empty()) explicit_part = h / model.masses()[i] * external[i];
    s.v[i] += dv.segment<3>(3 * i) + explicit_part;
    s.x[i] += h * s.v[i];
  }
  return absl::OkStatus();
}

// Checks a step's inputs and puts the held points at rest where they are.
absl::Status StartStep(const MassPointModel& model, double h, std::span<const Vec3> external,
                       MassPointState* state) {
  const int n = model.points();
  if (!(h > 0.0)) return absl::InvalidArgumentError(absl::StrCat("h: ", h, " must be > 0"));
  if (static_cast<int>(state->x.size()) != n || static_cast<int>(state->v.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("state: ", state->x.size(), " positions and ",
                                                   state->v.size(), " velocities for ", n,
                                                   " points"));
  }
  if (!external.empty() && static_cast<int>(external.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("external: ", external.size(), " forces for ", n, " points"));
  }
  for (int i = 0; i < n; ++i) {
    if (!model.held(i)) continue;
    state->v[i].setZero();
    if (static_cast<int>(state->x_prev.size()) == n) state->x_prev[i] = state->x[i];
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view IntegratorName(Integrator integrator) {
  switch (integrator) {
    case Integrator::kExplicitEuler: return "ExplicitEuler";
    case Integrator::kImplicitEuler: return "ImplicitEuler";
    case Integrator::kSemiImplicitEuler: return "SemiImplicitEuler";
    case Integrator::kMidpoint: return "Midpoint";
    case Integrator::kRungeKutta2: return "RungeKutta2";
    case Integrator::kVerlet: return "Verlet";
  }
  return "Unknown";
}

absl::Status Step(Integrator integrator, const MassPointModel& model, const Vec3& gravity,
                  double h, std::span<const Vec3> external, MassPointState* state) {
  if (absl::Status s = StartStep(model, h, external, state); !s.ok()) return s;
  switch (integrator) {
    case Integrator::kExplicitEuler:
      StepExplicitEuler(model, gravity, h, external, *state);
      return absl::OkStatus();
    case Integrator::kImplicitEuler:
      return StepImplicitEuler(model, gravity, h, external, nullptr, *state);
    case Integrator::kSemiImplicitEuler:
      StepSemiImplicitEuler(model, gravity, h, external, *state);
      return absl::OkStatus();
    case Integrator::kMidpoint:
      StepMidpoint(model, gravity, h, external, *state);
      return absl::OkStatus();
    case Integrator::kRungeKutta2:
      StepRungeKutta2(model, gravity, h, external, *state);
      return absl::OkStatus();
    case Integrator::kVerlet:
      StepVerlet(model, gravity, h, external, *state);
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError("integrator: unknown");
}

absl::Status StepImplicitEulerTo(const MassPointModel& model, const Vec3& gravity, double h,
                                 std::span<const Vec3> external, const GivenPositions& to,
                                 MassPointState* state) {
  const size_t n = static_cast<size_t>(model.points());
  if (to.given.size() != n || to.x.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("to: ", to.given.size(), " marks and ",
                                                   to.x.size(), " positions for ", n, " points"));
  }
  if (absl::Status s = StartStep(model, h, external, state); !s.ok()) return s;
  return StepImplicitEuler(model, gravity, h, external, &to, *state);
}

double PositionForceCoefficient(Integrator integrator, double h, double mass) {
  switch (integrator) {
    case Integrator::kExplicitEuler: return 0.0;
    case Integrator::kMidpoint:
    case Integrator::kRungeKutta2: return 0.5 * h * h / mass;
    case Integrator::kImplicitEuler:
    case Integrator::kSemiImplicitEuler:
    case Integrator::kVerlet: return h * h / mass;
  }
  return 0.0;
}

double VelocityForceCoefficient(Integrator integrator, double h, double mass) {
  return integrator == Integrator::kVerlet ? 0.5 * h / mass : h / mass;
}

int ConstraintLeadSteps(Integrator integrator) {
  return integrator == Integrator::kExplicitEuler ? 2 : 1;
}

double ConstraintCoefficient(Integrator integrator, double h, double mass) {
  return integrator == Integrator::kExplicitEuler ? h * h / mass
                                                  : PositionForceCoefficient(integrator, h, mass);
}

absl::StatusOr<std::vector<Vec3>> PredictConstrainedPositions(
    Integrator integrator, const MassPointModel& model, const Vec3& gravity, double h,
    std::span<const Vec3> external, const MassPointState& state) {
  MassPointState trial = state;
  if (absl::Status s = Step(integrator, model, gravity, h, external, &trial); !s.ok()) return s;
  if (integrator == Integrator::kExplicitEuler) {
    // x^{t+2h} = x^{t+h} + h v^{t+h}, whatever the forces at t + h.
    for (int i = 0; i < model.points(); ++i) trial.x[i] += h * trial.v[i];
  }
  return std::move(trial.x);
}

GenericForm MakeGenericForm(Integrator integrator, double h, double mass, const Mat3& jacobian) {
  const Mat3 id = Mat3::Identity();
  GenericForm form;
  form.c = PositionForceCoefficient(integrator, h, mass);
  form.d = VelocityForceCoefficient(integrator, h, mass);
  switch (integrator) {
    case Integrator::kVerlet:  // eq. 5, s = (x^t, x^{t-h})
      form.a << 2.0 * id, -id;
      form.b << id / h, -id / h;
      break;
    case Integrator::kRungeKutta2:  // eq. 8
      form.a << id, h * id;
      form.b << Mat3::Zero(), id + 0.5 * h * h / mass * jacobian;
      break;
    case Integrator::kImplicitEuler:  // eq. 10
      form.a << id, h * id + h * h * h / mass * jacobian;
      form.b << Mat3::Zero(), id + h * h / mass * jacobian;
      break;
    case Integrator::kExplicitEuler:  // x + h v, v + h F/m
    case Integrator::kSemiImplicitEuler:  // eq. 9
    case Integrator::kMidpoint:  // eq. 7
      form.a << id, h * id;
      form.b << Mat3::Zero(), id;
      break;
  }
  return form;
}

Vec6 GenericStateVector(Integrator integrator, const MassPointState& state, int i) {
  Vec6 s;
  s.head<3>() = state.x[i];
  s.tail<3>() = integrator == Integrator::kVerlet ? state.x_prev[i] : state.v[i];
  return s;
}

}  // namespace ligature
