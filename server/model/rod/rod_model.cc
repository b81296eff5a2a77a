#include "server/model/rod/rod_model.h"

#include <algorithm>
#include <cmath>
#include <numbers>

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

}  // namespace

absl::StatusOr<RodModel> RodModel::Make(const RodDesc& desc) {
  if (desc.points.size() < 2) {
    return absl::InvalidArgumentError("points: a rod needs at least two points");
  }
  const double length = PolylineLength(desc.points);
  if (!(length > 1e-6)) {
    return absl::InvalidArgumentError("points: the rod's length must be > 1e-6 m");
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
  for (int i = 0; i < n; ++i) state.x[i] = PolylineAt(points, model.spline().Greville(i));
  state.theta.assign(n, 0.0);
  state.v.assign(n, Vec3::Zero());
  state.omega.assign(n, 0.0);
  return state;
}

}  // namespace ligature
