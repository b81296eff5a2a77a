#include "server/model/rod/rod_model.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "Eigen/SVD"
#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Total length of a polyline.
double PolylineLength(const std::vector<Vec3>& points) {
  double length = 0.0;
  for (size_t i = 1; i < points.size(); ++i) length += (points[i] - points[i - 1]).norm();
  return length;
}

// The point at arc length s along a polyline (clamped to its ends).
Vec3 PolylineAt(const std::vector<Vec3>& points, double s) {
  for (size_t i = 1; i < points.size(); ++i) {
    const double segment = (points[i] - points[i - 1]).norm();
    if (s <= segment || i + 1 == points.size()) {
      const double t = segment > 0.0 ? std::clamp(s / segment, 0.0, 1.0) : 0.0;
      return points[i - 1] + t * (points[i] - points[i - 1]);
    }
    s -= segment;
  }
  return points.back();
}

// Four-point Gauss-Legendre on [0, 1]: exact for the degree-6 mass integrand.
constexpr double kGaussX[4] = {0.0694318442029737, 0.3300094782075719, 0.6699905217924281,
                               0.9305681557970263};
constexpr double kGaussW[4] = {0.1739274225687269, 0.3260725774312731, 0.3260725774312731,
                               0.1739274225687269};

// Three-point Gauss-Legendre on [0, 1]: exact to degree 5.
constexpr double kGauss3X[3] = {0.1127016653792583, 0.5, 0.8872983346207417};
constexpr double kGauss3W[3] = {0.2777777777777778, 0.4444444444444444, 0.2777777777777778};

}  // namespace

absl::StatusOr<RodModel> RodModel::Make(const RodDesc& desc) {
  if (desc.points.size() < 2) {
    return absl::InvalidArgumentError("points: a rod needs at least two points");
  }
  if (!(PolylineLength(desc.points) > 1e-6)) {
    return absl::InvalidArgumentError("points: the rod's length must be > 1e-6 m");
  }
  const bool curved = !desc.rest_points.empty();
  if (curved && desc.rest_points.size() < 2) {
    return absl::InvalidArgumentError("rest_points: a rest shape needs at least two points");
  }
  const double length = PolylineLength(curved ? desc.rest_points : desc.points);
  if (!(length > 1e-6)) {
    return absl::InvalidArgumentError("rest_points: the rest length must be > 1e-6 m");
  }
  if (!std::isfinite(desc.rest_twist)) {
    return absl::InvalidArgumentError("rest_twist: must be finite");
  }
  int n = desc.control_points;
  if (n == 0) n = std::clamp(static_cast<int>(std::ceil(length / 0.02)) + 3, 8, 400);
  if (n < 4 || n > 4000) {
    return absl::InvalidArgumentError("control_points: must be 0 (automatic) or in [4, 4000]");
  }
  RodModel model;
  model.spline_ = CubicBSpline(n, length);
  model.material_ = desc.material;
  const double h = model.spline_.segment_length();
  for (int s = 0; s < model.spline_.segments(); ++s) {
    for (int q = 0; q < 4; ++q) {
      RodQuadrature point;
      point.u = (s + kGaussX[q]) * h;
      point.weight = kGaussW[q] * h;
      point.basis = model.spline_.Sample(point.u);
      model.quadrature_.push_back(point);
    }
    for (int q = 0; q < 3; ++q) {
      RodQuadrature point;
      point.u = (s + kGauss3X[q]) * h;
      point.weight = kGauss3W[q] * h;
      point.basis = model.spline_.Sample(point.u);
      model.stretch_quadrature_.push_back(point);
    }
  }
  model.rest_twist_ = desc.rest_twist;
  if (curved) {
    // The rest control points, their slopes' lengths where stretching is measured and
    // each segment's rest bending force.
    RodState rest = InitialRodState(model, desc.rest_points);
    model.rest_x_ = rest.x;
    for (RodQuadrature& q : model.stretch_quadrature_) {
      q.rest_slope = rest.Tangent(q.basis).norm();
    }
    model.rest_bending_.assign(model.spline_.segments(), {Vec3::Zero(), Vec3::Zero(),
                                                          Vec3::Zero(), Vec3::Zero()});
    for (size_t k = 0; k < model.quadrature_.size(); ++k) {
      const RodQuadrature& q = model.quadrature_[k];
      const Vec3 curvature = rest.Curvature(q.basis);
      for (int a = 0; a < 4; ++a) {
        model.rest_bending_[k / 4][a] += q.weight * q.basis.ddb[a] * curvature;
      }
    }
  }
  return model;
}

double RodModel::area() const { return std::numbers::pi * std::pow(material_.radius, 2); }
double RodModel::bend_inertia() const {
  return std::numbers::pi * std::pow(material_.radius, 4) / 4.0;
}
double RodModel::polar_inertia() const { return 2.0 * bend_inertia(); }
double RodModel::mass() const { return material_.density * area() * length(); }

Vec3 RodState::Position(const SplineSample& s) const {
  Vec3 p = Vec3::Zero();
  for (int k = 0; k < 4; ++k) p += s.b[k] * x[s.first + k];
  return p;
}
Vec3 RodState::Tangent(const SplineSample& s) const {
  Vec3 t = Vec3::Zero();
  for (int k = 0; k < 4; ++k) t += s.db[k] * x[s.first + k];
  return t;
}
Vec3 RodState::Curvature(const SplineSample& s) const {
  Vec3 c = Vec3::Zero();
  for (int k = 0; k < 4; ++k) c += s.ddb[k] * x[s.first + k];
  return c;
}
double RodState::Twist(const SplineSample& s) const {
  double t = 0.0;
  for (int k = 0; k < 4; ++k) t += s.b[k] * theta[s.first + k];
  return t;
}

RodState InitialRodState(const RodModel& model, const std::vector<Vec3>& points) {
  const int n = model.control_points();
  RodState state;
  state.x.resize(n);
  const double scale = PolylineLength(points) / model.length();
  for (int i = 0; i < n; ++i) {
    state.x[i] = PolylineAt(points, scale * model.spline().Greville(i));
  }
  state.theta.resize(n);
  for (int i = 0; i < n; ++i) state.theta[i] = model.rest_twist() * model.spline().Greville(i);
  state.v.assign(n, Vec3::Zero());
  state.omega.assign(n, 0.0);
  return state;
}

}  // namespace ligature

namespace ligature {

std::vector<Mat3> SegmentRotations(const RodModel& model, const RodState& state) {
  const int segments = model.spline().segments();
  std::vector<Mat3> out(segments, Mat3::Identity());
  if (!model.curved()) return out;
  const std::vector<RodQuadrature>& quadrature = model.quadrature();
  const std::vector<Vec3>& rest = model.rest_points();
  for (int s = 0; s < segments; ++s) {
    // The rotation that best turns the segment's rest curvature onto its current one,
    // max sum w x''_q . R x_r''_q: R = V diag(1, 1, d) U^T from the SVD U S V^T of
    // sum w x_r''_q x''_q^T (d keeps it a rotation). Being optimal, it makes the bending
    // energy's derivative through R vanish, so the force with R held is its exact gradient.
    Mat3 cov = Mat3::Zero();
    for (int k = 4 * s; k < 4 * s + 4; ++k) {
      const SplineSample& b = quadrature[k].basis;
      Vec3 rest_curvature = Vec3::Zero();
      for (int a = 0; a < 4; ++a) rest_curvature += b.ddb[a] * rest[b.first + a];
      cov += quadrature[k].weight * rest_curvature * state.Curvature(b).transpose();
    }
    if (cov.squaredNorm() == 0.0) continue;  // a straight stretch: no rest curvature to turn
    const Eigen::JacobiSVD<Mat3> svd(cov, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Mat3 v = svd.matrixV(), u = svd.matrixU();
    Mat3 d = Mat3::Identity();
    d(2, 2) = (v * u.transpose()).determinant() < 0.0 ? -1.0 : 1.0;
    out[s] = v * d * u.transpose();
  }
  return out;
}

}  // namespace ligature
