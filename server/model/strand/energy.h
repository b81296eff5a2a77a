#pragma once
// Energies of a strand: kinetic (relative to the world), gravitational and elastic (the
// joint springs' energy, stiffness.h). For conservation checks and diagnostics.

#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

struct StrandEnergy {
  double kinetic = 0.0;  // J
  double gravity = 0.0;  // J, zero at the world origin's height
  double elastic = 0.0;  // J
  double total() const { return kinetic + gravity + elastic; }
};

StrandEnergy ComputeEnergy(const StrandModel& model, const StrandKinematics& kin,
                           const StrandState& state, const Vec3& gravity);

}  // namespace ligature
