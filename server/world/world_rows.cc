// Constraint rows of a world's step: contacts and joints at given poses, per-body
// compliance, and the warm-start memory. Used by both solver pipelines (world_solve.cc).

#include <algorithm>
#include <cmath>

#include "server/constraint/contact_rows.h"
#include "server/constraint/joint_rows.h"
#include "server/world/world.h"

namespace ligature {
namespace {

// The coefficient of a contact from its two bodies' values: their geometric mean (Coulomb
// friction, rolling and spinning resistance alike), so that either body being without it
// leaves the contact without it.
double ContactMaterialMean(double a, double b) { return std::sqrt(a * b); }

}  // namespace

// Contact blocks at `positions` (lever arms), warm-started from the cache (each contact's
// key in A's frame kept in step_.contact_local_a for StoreWarmStart). The gap term follows
// ContactGap (speculative, slow recovery).
void World::BuildContactRows(const std::vector<Vec3>& positions,
                             const std::vector<Quat>& orientations, bool with_friction,
                             bool warm) {
  const double h = step_.h;
  const PenetrationRecovery recovery = ContactRecovery();
  const WorldView w = View();
  const size_t first = step_.rows.blocks.size();
  if (warm) step_.contact_local_a.resize(step_.contacts.size());
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    const RigidContact& c = step_.contacts[k];
    const double mu =
        with_friction
            ? ContactMaterialMean(bodies_.material[c.a].friction, bodies_.material[c.b].friction)
            : 0.0;
    ConstraintBlock& block = step_.rows.blocks.emplace_back(
        MakeContactBlock(c.point, w.RigidContactBody(c.a, positions[c.a]),
                         w.RigidContactBody(c.b, positions[c.b]), mu, h, recovery));
    if (warm) {
      const Vec3 local_a =
          Transform{positions[c.a], orientations[c.a]}.InverseApply(c.point.position);
      block.force =
          contact_cache_.Lookup(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), local_a);
      step_.contact_local_a[k] = local_a;
    }
  }
  if (with_friction) BuildContactTorqueRows(positions, first);
}

// The rolling and spinning resistance of the contacts whose blocks start at `first`, after
// all of them (so that contact k keeps block first + k); only where the combined lever
// arms are not zero. They start from zero torque every tick (no warm start): a stick or
// slide of one rotation settles within the solve.
void World::BuildContactTorqueRows(const std::vector<Vec3>& positions, size_t first) {
  const double h = step_.h;
  const WorldView w = View();
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    const RigidContact& c = step_.contacts[k];
    const Material& ma = bodies_.material[c.a];
    const Material& mb = bodies_.material[c.b];
    const ContactTorqueFriction arms{
        ContactMaterialMean(ma.rolling_friction, mb.rolling_friction),
        ContactMaterialMean(ma.spinning_friction, mb.spinning_friction)};
    if (!(arms.rolling > 0.0) && !(arms.spinning > 0.0)) continue;
    AppendContactTorqueBlocks(c.point, w.RigidContactBody(c.a, positions[c.a]),
                              w.RigidContactBody(c.b, positions[c.b]),
                              static_cast<uint32_t>(first + k), arms, h, &step_.rows);
  }
}

// Joint blocks at the given centre-of-mass poses. At JointLevel::kPosition their
// violations are the joints' geometric errors there, and drives take no part; at the
// velocity levels they are the relative motion the current velocities would cause over the
// step, h J v (a limit keeps its remaining room, so it is speculative), and the drives'
// rows come with them (MakeDriveBlock: the poses are the tick's start poses, or, at
// kVelocityFree, the free-motion poses). A curve constraint whose point left the curve
// through a releasing end emits nothing and is removed at the end of the step
// (RemoveEndedJoints), which reports it in this tick's frame. A sleeping body's joints
// emit nothing.
void World::BuildJointRows(const std::vector<Vec3>& positions,
                           const std::vector<Quat>& orientations, JointLevel level) {
  const double h = step_.h;
  step_.joint_blocks.clear();
  auto velocity = [&](uint32_t i) {
    Vec6 v = Vec6::Zero();
    if (i != kWorldBody) v << bodies_.linear_velocity[i], bodies_.angular_velocity[i];
    return v;
  };
  auto side = [&](BodyHandle handle) {
    JointSide s;
    if (handle.IsNull()) return s;
    const uint32_t i = bodies_.Index(handle);
    s.index = bodies_.Moves(i) ? i : kWorldBody;
    s.pose = {positions[i], orientations[i]};
    s.velocity = velocity(i);
    return s;
  };
  const DriveStep drive_step{h, level == JointLevel::kVelocityFree};
  const DriveStep* drives = level == JointLevel::kPosition ? nullptr : &drive_step;
  auto& joints = constraints_.joints();
  const auto asleep = [&](BodyHandle handle) {
    return !handle.IsNull() && bodies_.IsAsleep(bodies_.Index(handle));
  };
  for (uint32_t k = 0; k < joints.size(); ++k) {
    const std::vector<uint32_t>& released = step_.released;
    if (std::find(released.begin(), released.end(), k) != released.end()) continue;
    // A joint of a sleeping body holds: nothing it joins moves (see WakeTouchedSleepers).
    if (asleep(joints[k].body_a) || asleep(joints[k].body_b)) continue;
    const uint32_t first = static_cast<uint32_t>(step_.rows.blocks.size());
    const JointRowsResult r = AppendJointRows(joints[k], side(joints[k].body_a),
                                              side(joints[k].body_b), drives, &step_.rows);
    if (r.released) step_.released.push_back(k);
    if (r.blocks == 0) continue;
    step_.joint_blocks.push_back({k, first, r.blocks});
    if (level == JointLevel::kPosition) continue;
    for (int m = 0; m < r.blocks; ++m) {
      ConstraintBlock& b = step_.rows.blocks[first + m];
      if (b.law == ConstraintLaw::kDrive) continue;  // already at velocity level
      const Vec3 hjv = h * (b.jacobian_a * velocity(b.body_a) + b.jacobian_b * velocity(b.body_b));
      if (b.law == ConstraintLaw::kUnilateral) {
        b.violation_free.x() = std::max(b.violation_free.x(), 0.0) + hjv.x();
      } else {
        b.violation_free = hjv;
      }
    }
  }
}

// Per-body compliance h^2 M^-1 at the given orientations (none for a sleeper, which no row
// moves).
void World::UpdateCompliance(const std::vector<Quat>& orientations) {
  const int n = bodies_.size();
  const double h2 = step_.h * step_.h;
  step_.compliance.resize(n);
  for (int i = 0; i < n; ++i) {
    if (bodies_.IsAsleep(i)) {
      step_.compliance[i] = {};
      continue;
    }
    const Mat3 r = orientations[i].toRotationMatrix();
    step_.compliance[i].linear = h2 * bodies_.inv_mass[i];
    step_.compliance[i].angular = h2 * r * bodies_.inv_inertia_local[i] * r.transpose();
  }
}

// Remembers the solved forces for the next tick's warm start: contact blocks first in
// step_.rows (matched by their point in A's frame at the poses the rows were built on, as
// looked up), then the joints' blocks as recorded in step_.joint_blocks.
void World::StoreWarmStart() {
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    const RigidContact& c = step_.contacts[k];
    contact_cache_.Store(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), step_.contact_local_a[k],
                         step_.rows.blocks[k].force);
  }
  auto& joints = constraints_.joints();
  for (const JointBlocks& jb : step_.joint_blocks) {
    for (int m = 0; m < jb.count; ++m) {
      joints[jb.joint].forces[m] = step_.rows.blocks[jb.first + m].force;
    }
  }
}

// Joints whose solved blocks carried more than their break force or torque: the wrench the
// blocks put on B (on A when B takes no correction), its torque taken about that side's
// anchor. They are removed at the end of the step (RemoveEndedJoints).
void World::FindBrokenJoints() {
  const auto& joints = constraints_.joints();
  for (const JointBlocks& jb : step_.joint_blocks) {
    const Joint& joint = joints[jb.joint];
    const JointParams& p = joint.params;
    if (std::isinf(p.break_force) && std::isinf(p.break_torque)) continue;
    const bool on_b = step_.rows.blocks[jb.first].body_b != kWorldBody;
    Vec6 wrench = Vec6::Zero();
    for (int m = 0; m < jb.count; ++m) {
      const ConstraintBlock& b = step_.rows.blocks[jb.first + m];
      const BlockJacobian& j = on_b ? b.jacobian_b : b.jacobian_a;
      wrench += j.topRows(b.dim).transpose() * b.force.head(b.dim);
    }
    const uint32_t i = bodies_.Index(on_b ? joint.body_b : joint.body_a);
    const Vec3 arm = bodies_.orientation[i] * (on_b ? joint.frame_b : joint.frame_a).position;
    const Vec3 force = wrench.head<3>();
    const double torque = (wrench.tail<3>() - arm.cross(force)).norm();
    if (force.norm() > p.break_force || torque > p.break_torque) {
      step_.broken.push_back({jb.joint, force.norm(), torque});
    }
  }
}

}  // namespace ligature
