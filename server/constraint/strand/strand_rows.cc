#include "server/constraint/strand/strand_rows.h"

#include "server/model/strand/spatial.h"

namespace ligature {

double StrandRowSystem::MeasureResponse(const StrandKinematics& kin, const StrandRow& row,
                                        const std::vector<Vec3>& dalpha,
                                        const std::vector<Vec6>& da) const {
  if (row.kind == StrandRow::Kind::kJoint) return row.direction.dot(dalpha[row.segment]);
  // No velocity: the point's acceleration is the linear part at the point.
  const Vec6& a = da[row.segment];
  return row.direction.dot(kin.pose[row.segment].Rotate(spatial::PointVelocity(a, row.point)));
}

void StrandRowSystem::Build(const StrandModel& model, const StrandKinematics& kin,
                            ArticulatedSolver& solver, const std::vector<StrandRow>& rows) {
  const int n = model.segments();
  const int m = static_cast<int>(rows.size());
  rows_ = rows;
  k_.setZero(m, m);
  dalpha_.assign(m, {});
  std::vector<Vec6> f_link;
  std::vector<Vec3> tau;
  std::vector<Vec6> da;
  for (int j = 0; j < m; ++j) {
    const StrandRow& row = rows[j];
    f_link.clear();
    tau.clear();
    // The unit test force of row j.
    if (row.kind == StrandRow::Kind::kPoint) {
      f_link.assign(n, Vec6::Zero());
      f_link[row.segment] =
          spatial::ForceAt(row.point, kin.pose[row.segment].InverseRotate(row.direction));
    } else {
      tau.assign(n, Vec3::Zero());
      tau[row.segment] = row.direction;
    }
    solver.Response(model, kin, f_link, tau, &dalpha_[j], &da);
    for (int i = 0; i < m; ++i) k_(i, j) = MeasureResponse(kin, rows[i], dalpha_[j], da);
  }
  // Symmetric in exact arithmetic; averaging removes round-off asymmetry.
  k_ = 0.5 * (k_ + k_.transpose()).eval();
}

template <class PointAcceleration>
Eigen::VectorXd StrandRowSystem::PerRow(const std::vector<Vec3>& alpha,
                                        PointAcceleration point) const {
  Eigen::VectorXd out(rows_.size());
  for (size_t r = 0; r < rows_.size(); ++r) {
    const StrandRow& row = rows_[r];
    const Vec3 a = row.kind == StrandRow::Kind::kJoint ? alpha[row.segment] : point(row);
    out[r] = row.direction.dot(a);
  }
  return out;
}

Eigen::VectorXd StrandRowSystem::Measure(const StrandModel& model, const StrandKinematics& kin,
                                         const std::vector<Vec3>& w, const Vec6& base_acceleration,
                                         const std::vector<Vec3>& alpha) const {
  std::vector<Vec6> a;
  ComputeAccelerations(model, kin, w, base_acceleration, alpha, &a);
  return PerRow(alpha, [&](const StrandRow& row) {
    return kin.Acceleration(row.segment, row.point, a[row.segment]);
  });
}

Eigen::VectorXd StrandRowSystem::MeanAccelerations(
    const StrandModel& model, const StrandKinematics& start, const Transform& base_pose,
    const Vec6& base_velocity, const std::vector<Quat>& q, const std::vector<Vec3>& w_start,
    double h, const std::vector<Vec3>& alpha) const {
  std::vector<Vec3> w_end(w_start.size());
  for (size_t i = 0; i < w_end.size(); ++i) w_end[i] = w_start[i] + h * alpha[i];
  StrandKinematics end;
  ComputeKinematics(model, base_pose, base_velocity, q, w_end, &end);
  return PerRow(alpha, [&](const StrandRow& row) {
    return Vec3((end.Velocity(row.segment, row.point) - start.Velocity(row.segment, row.point)) / h);
  });
}

void StrandRowSystem::AddResponse(const Eigen::VectorXd& f, std::vector<Vec3>* alpha) const {
  for (int j = 0; j < f.size(); ++j) {
    if (f[j] == 0.0) continue;
    for (size_t i = 0; i < alpha->size(); ++i) (*alpha)[i] += f[j] * dalpha_[j][i];
  }
}

}  // namespace ligature
