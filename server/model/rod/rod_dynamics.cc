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

void AssembleConstantPart(const RodModel& model, double h, RodConstantPart* out) {
  const int n = model.control_points();
  const Coefficients k(model, h);
  RodSystem& sys = out->system;
  sys.upper.assign(n, {Mat4::Zero(), Mat4::Zero(), Mat4::Zero(), Mat4::Zero()});
  sys.rhs.assign(n, Vec4::Zero());
  out->mass.assign(n, {0.0, 0.0, 0.0, 0.0});
  out->bending.assign(n, {0.0, 0.0, 0.0, 0.0});
  out->twist.assign(n, {0.0, 0.0, 0.0, 0.0});
  out->basis_integral.assign(n, 0.0);
  for (const RodQuadrature& q : model.quadrature()) {
    const SplineSample& s = q.basis;
    const double w = q.weight;
    for (int a = 0; a < 4; ++a) {
      out->basis_integral[s.first + a] += w * s.b[a];
      for (int c = a; c < 4; ++c) {
        const double m = w * s.b[a] * s.b[c];
        const double bend = w * s.ddb[a] * s.ddb[c];
        const double twist = w * s.db[a] * s.db[c];
        out->mass[s.first + a][c - a] += m;
        out->bending[s.first + a][c - a] += bend;
        out->twist[s.first + a][c - a] += twist;
        const double position = k.mass_scale * k.rho_a * m + k.stiff_scale * k.ei * bend;
        AddPositionBlock(&sys, s.first + a, s.first + c, 1.0, position * Mat3::Identity());
        AddTwistEntry(&sys, s.first + a, s.first + c,
                      k.mass_scale * k.rho_j * m + k.stiff_scale * k.gj * twist);
      }
    }
  }
}

namespace {

// y_i += sum_j (s1 B1_ij z1_j + s2 B2_ij z2_j) for symmetric scalar bands B1, B2 and
// per-point values z1, z2: row by row, each y_i summed in a register and written once.
template <typename T>
void AddBandProducts(const ScalarBand& b1, const std::vector<T>& z1, double s1,
                     const ScalarBand& b2, const std::vector<T>& z2, double s2,
                     std::vector<T>* y) {
  const int n = static_cast<int>(b1.size());
  for (int i = 0; i < n; ++i) {
    T sum = (s1 * b1[i][0]) * z1[i] + (s2 * b2[i][0]) * z2[i];
    for (int k = 1; k < 4; ++k) {
      if (i + k < n) sum += (s1 * b1[i][k]) * z1[i + k] + (s2 * b2[i][k]) * z2[i + k];
      if (i >= k) sum += (s1 * b1[i - k][k]) * z1[i - k] + (s2 * b2[i - k][k]) * z2[i - k];
    }
    (*y)[i] += sum;
  }
}

// Four doubles, for the stretching kernels (AVX2 with the x86-64-v3 clone, two SSE2 halves
// without).
using V4 = double __attribute__((vector_size(32)));

// What the stretching pass keeps per quadrature point: its Hessian (xx xy xz yy, yz zz and
// two zeros) and its force (x y z and a zero), in three groups of four.
constexpr int kStretchPerPoint = 12;

// Row i of S's blocks and point i's force: block (i, i + k) takes, from segment s = i - a
// (a = 0..3 - k, those that exist), its points' Hessians weighted by b_a' b_(a+k)', and
// the force their forces weighted by b_a'. Each point's Hessian is loaded once for the
// (up to) four blocks it feeds. kInterior: all four segments exist (fixed loops).
template <bool kInterior>
[[gnu::always_inline]] inline void GatherStretching(const RodQuadrature* quad, int segments,
                                                    int n, int i, const double* scratch,
                                                    const std::array<Mat4, 4>& constant,
                                                    std::array<Mat4, 4>& row, Vec3& force) {
  V4 f = {0.0, 0.0, 0.0, 0.0};
  V4 h0[4], h1[4];
  for (int k = 0; k < 4; ++k) {
    h0[k] = V4{0.0, 0.0, 0.0, 0.0};
    h1[k] = V4{0.0, 0.0, 0.0, 0.0};
  }
  const int a_first = kInterior ? 0 : std::max(0, i - segments + 1);
  const int a_last = kInterior ? 3 : std::min(3, i);
  for (int a = a_first; a <= a_last; ++a) {
    const int seg = i - a;
    for (int q = 0; q < 3; ++q) {
      const int p = 3 * seg + q;
      assert(quad[p].basis.first == seg);
      const std::array<double, 4>& db = quad[p].basis.db;
      const double* h = scratch + static_cast<size_t>(p) * kStretchPerPoint;
      V4 v0, v1, vf;
      __builtin_memcpy(&v0, h, sizeof(v0));
      __builtin_memcpy(&v1, h + 4, sizeof(v1));
      __builtin_memcpy(&vf, h + 8, sizeof(vf));
      f += db[a] * vf;
      for (int k = 0; k + a <= 3; ++k) {
        const double w = db[a] * db[a + k];
        h0[k] += w * v0;
        h1[k] += w * v1;
      }
    }
  }
  // Each block is the constant part's plus the stretching's symmetric 3 x 3, written
  // column by column (column-major 4 x 4; h1's last two lanes are zero).
  for (int k = 0; k < 4; ++k) {
    const double* from = constant[k].data();
    double* to = row[k].data();
    if (!kInterior && i + k >= n) {
      __builtin_memcpy(to, from, 16 * sizeof(double));
      continue;
    }
    const V4 columns[3] = {__builtin_shufflevector(h0[k], h1[k], 0, 1, 2, 6),
                           __builtin_shufflevector(h0[k], h1[k], 1, 3, 4, 6),
                           __builtin_shufflevector(h0[k], h1[k], 2, 4, 5, 6)};
    for (int c = 0; c < 3; ++c) {
      V4 column;
      __builtin_memcpy(&column, from + 4 * c, sizeof(column));
      column += columns[c];
      __builtin_memcpy(to + 4 * c, &column, sizeof(column));
    }
    __builtin_memcpy(to + 12, from + 12, 4 * sizeof(double));
  }
  force -= Vec3(f[0], f[1], f[2]);
}

// Stretching at its quadrature points (three per segment, in segment order): force
// -EA (|x'| - l_r) t per unit basis slope (l_r = |x_r'|, 1 for a straight rest); its
// Hessian in x' is EA (t t^T + max(0, 1 - l_r/|x'|) (I - t t^T)), scaled by stiff_scale
// into S's blocks. The one per-step integral, done in two passes: first every point's
// force and Hessian (points are independent there, so their square roots and divisions
// overlap), then every block of S gathers the points of the segments it spans and is
// updated once. On x86-64 it is also compiled for AVX2 with FMA, chosen at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void AddStretching(const RodModel& model, const RodState& state, double ea,
                   double stiff_scale, const std::array<Mat4, 4>* constant,
                   std::array<Mat4, 4>* upper, Vec3* force, double* scratch) {
  const std::vector<RodQuadrature>& quad = model.stretch_quadrature();
  const int points = static_cast<int>(quad.size());
  // A segment's three points at a time (one lane each, the fourth idle): they share the
  // segment's four control points, one vector division serves them, and their square
  // roots overlap.
  const int segments = points / 3;
  const double ea_scaled = stiff_scale * ea;
  for (int seg = 0; seg < segments; ++seg) {
    const RodQuadrature* q3 = quad.data() + 3 * seg;
    assert(q3[0].basis.first == seg && q3[2].basis.first == seg);
    const Vec3* x = state.x.data() + seg;
    V4 xx = {0.0, 0.0, 0.0, 0.0}, xy = xx, xz = xx;
    for (int a = 0; a < 4; ++a) {
      const V4 db = {q3[0].basis.db[a], q3[1].basis.db[a], q3[2].basis.db[a], 0.0};
      xx += db * x[a].x();
      xy += db * x[a].y();
      xz += db * x[a].z();
    }
    const V4 w = {q3[0].weight, q3[1].weight, q3[2].weight, 0.0};
    const V4 rest = {q3[0].rest_slope, q3[1].rest_slope, q3[2].rest_slope, 1.0};
    const V4 l2 = xx * xx + xy * xy + xz * xz;
    const V4 l = {std::max(std::sqrt(l2[0]), 1e-12), std::max(std::sqrt(l2[1]), 1e-12),
                  std::max(std::sqrt(l2[2]), 1e-12), 1.0};
    const V4 inv = 1.0 / l;  // one division for t and c
    const V4 scale = w * ea_scaled;
    const V4 one_minus = 1.0 - rest * inv;
    const V4 c = one_minus > 0.0 ? one_minus : 0.0;
    // alpha t t^T + beta I with t = x' / l.
    const V4 alpha = scale * (1.0 - c) * inv * inv;
    const V4 beta = scale * c;
    const V4 g = w * ea * (l - rest) * inv;
    const V4 h0 = alpha * xx * xx + beta, h1 = alpha * xx * xy, h2 = alpha * xx * xz;
    const V4 h3 = alpha * xy * xy + beta, h4 = alpha * xy * xz, h5 = alpha * xz * xz + beta;
    const V4 fx = g * xx, fy = g * xy, fz = g * xz;
    for (int q = 0; q < 3; ++q) {
      double* out = scratch + static_cast<size_t>(3 * seg + q) * kStretchPerPoint;
      out[0] = h0[q];
      out[1] = h1[q];
      out[2] = h2[q];
      out[3] = h3[q];
      out[4] = h4[q];
      out[5] = h5[q];
      out[6] = 0.0;
      out[7] = 0.0;
      out[8] = fx[q];
      out[9] = fy[q];
      out[10] = fz[q];
      out[11] = 0.0;
    }
  }
  const int n = model.control_points();
  for (int i = 0; i < n; ++i) {
    if (i >= 3 && i < segments) {
      GatherStretching<true>(quad.data(), segments, n, i, scratch, constant[i], upper[i],
                             force[i]);
    } else {
      GatherStretching<false>(quad.data(), segments, n, i, scratch, constant[i], upper[i],
                              force[i]);
    }
  }
}

}  // namespace

void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external,
                       const RodConstantPart& constant, RodSystem* out) {
  const int n = model.control_points();
  assert(constant.system.control_points() == n);
  const Coefficients k(model, h);
  out->upper.resize(n);

  // F's linear terms through the constant operators: inertia M V / h, gravity, bending
  // -EI Kb X and twisting -GJ Kt theta.
  std::vector<Vec3>& force = out->scratch_force;
  std::vector<double>& moment = out->scratch_moment;
  force.assign(n, Vec3::Zero());
  moment.assign(n, 0.0);
  AddBandProducts(constant.mass, state.v, k.rho_a / h, constant.bending, state.x, -k.ei,
                  &force);
  AddBandProducts(constant.mass, state.omega, k.rho_j / h, constant.twist, state.theta,
                  -k.gj, &moment);
  for (int i = 0; i < n; ++i) force[i] += (k.rho_a * constant.basis_integral[i]) * gravity;
  // The rest shape's terms: the rest curvature's bending force, turned with each segment,
  // and the rest twist's moments (int b_i' du is -1 at the first point, 1 at the last).
  if (model.curved()) {
    const std::vector<Mat3> rotation = SegmentRotations(model, state);
    for (size_t seg = 0; seg < rotation.size(); ++seg) {
      for (int a = 0; a < 4; ++a) {
        force[seg + a] += k.ei * (rotation[seg] * model.rest_bending()[seg][a]);
      }
    }
  }
  moment[0] -= k.gj * model.rest_twist();
  moment[n - 1] += k.gj * model.rest_twist();

  out->scratch_stretch.resize(kStretchPerPoint * model.stretch_quadrature().size());
  AddStretching(model, state, k.ea, k.stiff_scale, constant.system.upper.data(),
                out->upper.data(), force.data(), out->scratch_stretch.data());
  // Point forces at rod points, spread by the basis.
  for (const auto& [u, f] : external) {
    const SplineSample s = model.spline().Sample(u);
    for (int a = 0; a < 4; ++a) force[s.first + a] += s.b[a] * f;
  }
  out->rhs.resize(n);
  for (int i = 0; i < n; ++i) out->rhs[i] << force[i], moment[i];
}

void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external, RodSystem* out) {
  RodConstantPart constant;
  AssembleConstantPart(model, h, &constant);
  AssembleRodSystem(model, state, h, gravity, external, constant, out);
}

double RodPotentialEnergy(const RodModel& model, const RodState& state, const Vec3& gravity) {
  const RodMaterial& mat = model.material();
  const double ea = mat.young * model.area();
  const double ei = mat.young * model.bend_inertia();
  const double gj = mat.shear * model.polar_inertia();
  const double rho_a = mat.density * model.area();
  const std::vector<Mat3> rotation = SegmentRotations(model, state);
  double energy = 0.0;
  for (size_t k = 0; k < model.quadrature().size(); ++k) {
    const RodQuadrature& q = model.quadrature()[k];
    const SplineSample& s = q.basis;
    double thetap = -model.rest_twist();
    Vec3 rest_curvature = Vec3::Zero();
    for (int a = 0; a < 4; ++a) {
      thetap += s.db[a] * state.theta[s.first + a];
      if (model.curved()) rest_curvature += s.ddb[a] * model.rest_points()[s.first + a];
    }
    const Vec3 bend = state.Curvature(s) - rotation[k / 4] * rest_curvature;
    energy += q.weight * (0.5 * ei * bend.squaredNorm() + 0.5 * gj * thetap * thetap -
                          rho_a * gravity.dot(state.Position(s)));
  }
  // Stretching with the quadrature the step uses, so that F is its exact gradient.
  for (const RodQuadrature& q : model.stretch_quadrature()) {
    const double stretch = state.Tangent(q.basis).norm() - q.rest_slope;
    energy += q.weight * 0.5 * ea * stretch * stretch;
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
