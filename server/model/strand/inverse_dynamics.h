#pragma once
// The recursive residual of the oriented-strands formulation (Algorithm 1), i.e. the
// recursive Newton-Euler inverse dynamics: the joint torques that produce the joint
// accelerations `alpha` at the given kinematics, with external link forces f_ext. Used as a
// residual (implicit step check), to assemble dense reference mass matrices by unit
// accelerations, and for the zero-gravity rest shape.

#include <vector>

#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

// Returns S^T rs_i per joint, where rs_i = I_i a_i + v_i x* I_i v_i - f_i + sum over children
// of X_j^T rs_j. f_ext may be empty (no external forces).
std::vector<Vec3> InverseDynamics(const StrandModel& model, const StrandKinematics& kin,
                                  const std::vector<Vec3>& w, const Vec6& base_acceleration,
                                  const std::vector<Vec3>& alpha,
                                  const std::vector<Vec6>& f_ext);

}  // namespace ligature
