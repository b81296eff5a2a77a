#include "server/model/rod/rod_dynamics.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ligature {
namespace {

// Adds w * a_j * c_k * H (on the position rows/columns) to the block of points (j, k).
void AddPositionBlock(RodSystem* sys, int pj, int pk, double scale, const Mat3& h) {
  if (pk < pj) {
    sys->upper[pk][pj - pk].topLeftCorner<3, 3>() += scale * h.transpose();
  } else {
    sys->upper[pj][pk - pj].topLeftCorner<3, 3>() += scale * h;
  }
}
void AddTwistEntry(RodSystem* sys, int pj, int pk, double value) {
  const int lo = std::min(pj, pk), hi = std::max(pj, pk);
  sys->upper[lo][hi - lo](3, 3) += value;
}

}  // namespace

// Material and section constants of one rod, and the step's scales of M and K.
struct Coefficients {
  double ea, ei, gj, rho_a, rho_j, mass_scale, stiff_scale;
  Coefficients(const RodModel& model, double h) {
    const RodMaterial& mat = model.material();
    ea = mat.young * model.area();
    ei = mat.young * model.bend_inertia();
    gj = mat.shear * model.polar_inertia();
    rho_a = mat.density * model.area();
    rho_j = mat.density * model.polar_inertia();
    mass_scale = 1.0 / (h * h) + mat.damping / h;
    stiff_scale = 1.0 + mat.stiffness_damping / h;
  }
};

void AssembleConstantPart(const RodModel& model, double h, RodSystem* out) {
  const int n = model.control_points();
  const Coefficients k(model, h);
  out->upper.assign(n, {Mat4::Zero(), Mat4::Zero(), Mat4::Zero(), Mat4::Zero()});
  out->rhs.assign(n, Vec4::Zero());
  for (const RodQuadrature& q : model.quadrature()) {
    const SplineSample& s = q.basis;
    const double w = q.weight;
    for (int a = 0; a < 4; ++a) {
      for (int c = a; c < 4; ++c) {
        const double m = w * s.b[a] * s.b[c];
        const double position = k.mass_scale * k.rho_a * m +
                                k.stiff_scale * w * k.ei * s.ddb[a] * s.ddb[c];
        AddPositionBlock(out, s.first + a, s.first + c, 1.0, position * Mat3::Identity());
        AddTwistEntry(out, s.first + a, s.first + c,
                      k.mass_scale * k.rho_j * m + k.stiff_scale * w * k.gj * s.db[a] * s.db[c]);
      }
    }
  }
}

void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external,
                       const RodSystem& constant, RodSystem* out) {
  assert(constant.control_points() == model.control_points());
  const Coefficients k(model, h);
  out->upper = constant.upper;
  out->rhs.assign(model.control_points(), Vec4::Zero());

  for (const RodQuadrature& q : model.quadrature()) {
    const SplineSample& s = q.basis;
    const double w = q.weight;
    const Vec3 xp = state.Tangent(s);
    const Vec3 xpp = state.Curvature(s);
    double thetap = 0.0;
    Vec3 v = Vec3::Zero();
    double omega = 0.0;
    for (int a = 0; a < 4; ++a) {
      thetap += s.db[a] * state.theta[s.first + a];
      v += s.b[a] * state.v[s.first + a];
      omega += s.b[a] * state.omega[s.first + a];
    }
    // Stretching: force -EA (|x'| - 1) t per unit basis slope; its Hessian in x' is
    // EA (t t^T + max(0, 1 - 1/|x'|) (I - t t^T)).
    const double l = std::max(xp.norm(), 1e-12);
    const Vec3 t = xp / l;
    const Vec3 stretch_force = k.ea * (l - 1.0) * t;
    const Mat3 tt = t * t.transpose();
    const Mat3 stretch_h =
        (w * k.stiff_scale * k.ea) *
        (tt + std::max(0.0, 1.0 - 1.0 / l) * (Mat3::Identity() - tt));

    for (int a = 0; a < 4; ++a) {
      Vec4& f = out->rhs[s.first + a];
      // Inertia (M V / h), gravity, elastic forces.
      f.head<3>() += w * (k.rho_a * s.b[a] * (v / h + gravity) - s.db[a] * stretch_force -
                          k.ei * s.ddb[a] * xpp);
      f[3] += w * (k.rho_j * s.b[a] * omega / h - k.gj * s.db[a] * thetap);
      for (int c = a; c < 4; ++c) {
        AddPositionBlock(out, s.first + a, s.first + c, s.db[a] * s.db[c], stretch_h);
      }
    }
  }
  // Point forces at rod points, spread by the basis.
  for (const auto& [u, force] : external) {
    const SplineSample s = model.spline().Sample(u);
    for (int a = 0; a < 4; ++a) out->rhs[s.first + a].head<3>() += s.b[a] * force;
  }
}

void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external, RodSystem* out) {
  RodSystem constant;
  AssembleConstantPart(model, h, &constant);
  AssembleRodSystem(model, state, h, gravity, external, constant, out);
}

double RodPotentialEnergy(const RodModel& model, const RodState& state, const Vec3& gravity) {
  const RodMaterial& mat = model.material();
  const double ea = mat.young * model.area();
  const double ei = mat.young * model.bend_inertia();
  const double gj = mat.shear * model.polar_inertia();
  const double rho_a = mat.density * model.area();
  double energy = 0.0;
  for (const RodQuadrature& q : model.quadrature()) {
    const SplineSample& s = q.basis;
    double thetap = 0.0;
    for (int a = 0; a < 4; ++a) thetap += s.db[a] * state.theta[s.first + a];
    const double stretch = state.Tangent(s).norm() - 1.0;
    energy += q.weight * (0.5 * ea * stretch * stretch +
                          0.5 * ei * state.Curvature(s).squaredNorm() +
                          0.5 * gj * thetap * thetap -
                          rho_a * gravity.dot(state.Position(s)));
  }
  return energy;
}

double RodKineticEnergy(const RodModel& model, const RodState& state) {
  const double rho_a = model.material().density * model.area();
  const double rho_j = model.material().density * model.polar_inertia();
  double energy = 0.0;
  for (const RodQuadrature& q : model.quadrature()) {
    const SplineSample& s = q.basis;
    Vec3 v = Vec3::Zero();
    double omega = 0.0;
    for (int a = 0; a < 4; ++a) {
      v += s.b[a] * state.v[s.first + a];
      omega += s.b[a] * state.omega[s.first + a];
    }
    energy += 0.5 * q.weight * (rho_a * v.squaredNorm() + rho_j * omega * omega);
  }
  return energy;
}

}  // namespace ligature
