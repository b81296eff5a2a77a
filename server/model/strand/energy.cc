#include "server/model/strand/energy.h"

#include "server/model/strand/stiffness.h"

namespace ligature {

StrandEnergy ComputeEnergy(const StrandModel& model, const StrandKinematics& kin,
                           const StrandState& state, const Vec3& gravity) {
  StrandEnergy e;
  for (int i = 0; i < model.segments(); ++i) {
    const StrandSegment& seg = model.segment(i);
    e.kinetic += 0.5 * kin.v[i].dot(seg.inertia * kin.v[i]);
    e.gravity -= seg.mass * gravity.dot(kin.Position(i, Vec3(0.0, 0.5 * seg.length, 0.0)));
    e.elastic += SpringEnergy(seg, state.q[i]);
  }
  return e;
}

}  // namespace ligature
