#pragma once
// Scalar constraint rows on a strand, in acceleration space (section 4 of the
// oriented-strands formulation). A row applies a generalized force along its direction
// and measures the acceleration along the same direction, so its Jacobian K (eq. 13) is
// symmetric. K is found as the paper does, by unit test forces: for each row, one O(n)
// articulated-body response to a unit force, read back at every row.
//  - a point row: a world direction n at a point of a segment (force f n at the point,
//    classical acceleration of the point along n);
//  - a joint row: an axis of a joint in the segment's coordinates (torque f u on the joint,
//    joint acceleration along u) - the paper's spatial constraint vector.

#include <vector>

#include <Eigen/Core>

#include "server/model/strand/articulated.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

// The bounds of one row's force in the strand LCP (eq. 17).
struct LcpBound {
  enum class Kind { kBilateral, kUnilateral, kFriction };
  Kind kind = Kind::kUnilateral;
  int normal = -1;  // kFriction: the row of its normal force
  double mu = 0.0;  // kFriction: x <= mu * x[normal]
  // kFriction with a partner (the second tangent of the same contact): the pair is kept in
  // the disk |(x, x[partner])| <= mu * x[normal] instead, each of sign free.
  int partner = -1;
};

struct StrandRow {
  enum class Kind { kPoint, kJoint };
  Kind kind = Kind::kPoint;
  int segment = 0;
  Vec3 point = Vec3::Zero();      // kPoint: segment coordinates
  Vec3 direction = Vec3::UnitX(); // kPoint: world, unit; kJoint: segment coordinates, unit
  double desired = 0.0;           // a^d (m/s^2 or rad/s^2), or a velocity change for impulses
  LcpBound bound;
};

// K, the free accelerations a^0 and the unit responses of a set of rows.
class StrandRowSystem {
 public:
  // Unit responses through `solver`'s last factorization (taken at `kin`).
  void Build(const StrandModel& model, const StrandKinematics& kin, ArticulatedSolver& solver,
             const std::vector<StrandRow>& rows);

  // The rows' accelerations for joint accelerations alpha at `kin` with joint velocities w
  // and base acceleration a0 (a^0 of eq. 13 when alpha is the free solution).
  Eigen::VectorXd Measure(const StrandModel& model, const StrandKinematics& kin,
                          const std::vector<Vec3>& w, const Vec6& base_acceleration,
                          const std::vector<Vec3>& alpha) const;

  // The rows' mean accelerations over a step of h: a point's velocity at the step's end
  // (joint velocities w_start + h alpha at rotations q, the pose of the responses' `kin`,
  // on a base moving at base_velocity) less its velocity in `start`, over h; a joint row's
  // alpha. Linear in alpha through the unit responses' Jacobian, and without the velocity
  // products of the free motion's end velocities, which the constrained step never reaches:
  // measured with those, a held strand at rest settles off its target by them over kp.
  Eigen::VectorXd MeanAccelerations(const StrandModel& model, const StrandKinematics& start,
                                    const Transform& base_pose, const Vec6& base_velocity,
                                    const std::vector<Quat>& q, const std::vector<Vec3>& w_start,
                                    double h, const std::vector<Vec3>& alpha) const;

  // Adds the response sum f_j dalpha_j of row forces f to alpha.
  void AddResponse(const Eigen::VectorXd& f, std::vector<Vec3>* alpha) const;

  const Eigen::MatrixXd& K() const { return k_; }
  const std::vector<StrandRow>& rows() const { return rows_; }

 private:
  // Each row's direction dotted with its joint's alpha (a joint row) or with
  // point(row) (a point row).
  template <class PointAcceleration>
  Eigen::VectorXd PerRow(const std::vector<Vec3>& alpha, PointAcceleration point) const;
  double MeasureResponse(const StrandKinematics& kin, const StrandRow& row,
                         const std::vector<Vec3>& dalpha, const std::vector<Vec6>& da) const;

  std::vector<StrandRow> rows_;
  Eigen::MatrixXd k_;
  std::vector<std::vector<Vec3>> dalpha_;  // per row: joint accelerations per unit force
};

}  // namespace ligature
