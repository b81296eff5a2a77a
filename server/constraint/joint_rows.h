#pragma once
// Constraint rows of the joints, evaluated at the bodies' free-motion poses.

#include "server/constraint/constraint_rows.h"
#include "server/constraint/drive_rows.h"
#include "server/constraint/joint.h"

namespace ligature {

// One side of a joint as the row builders see it: the dense body index (or kWorldBody for
// the world or a body that takes no correction), its centre-of-mass pose (identity for the
// world) and its velocity (linear, angular; a kinematic body's too).
struct JointSide {
  uint32_t index = kWorldBody;
  Transform pose;
  Vec6 velocity = Vec6::Zero();
};

// What building a joint's rows found out about it.
struct JointRowsResult {
  int blocks = 0;          // blocks appended to rows (at most kMaxJointBlocks), in
                           // joint.forces order
  bool released = false;   // a kCurve with kRelease whose point passed an end
};

// Appends the rows of `joint` (warm-started from joint.forces). For kCurve it also
// advances joint.curve_segment to the segment nearest the point. With `drives` its drives'
// rows come too (after the geometric ones, before a limit); without, only its geometry is
// built (a position pass), and joint.forces is left as it is.
JointRowsResult AppendJointRows(Joint& joint, const JointSide& a, const JointSide& b,
                                const DriveStep* drives, ConstraintRows* rows);

}  // namespace ligature
