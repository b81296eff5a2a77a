#pragma once
// Eigen aliases used throughout the engine. All quantities are SI (m, kg, s, rad, N).
// Quaternions are Eigen::Quaterniond: storage order (x, y, z, w), constructed as (w, x, y, z).

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ligature {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// Skew-symmetric matrix such that Skew(a) * b == a.cross(b).
inline Mat3 Skew(const Vec3& a) {
  Mat3 m;
  m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return m;
}

}  // namespace ligature
