#pragma once
// Constraint rows of the joints, evaluated at the bodies' free-motion poses.

#include "server/constraint/constraint_rows.h"
#include "server/constraint/joint.h"

namespace ligature {

// One side of a joint as the row builders see it: the dense body index (or kWorldBody for
// the world or a body that takes no correction) and its centre-of-mass pose after free
// motion (identity for the world).
struct JointSide {
  uint32_t index = kWorldBody;
  Transform pose;
};

// What building a joint's rows found out about it.
struct JointRowsResult {
  int blocks = 0;          // blocks appended to rows (at most 3), in joint.forces order
  bool released = false;   // a kCurve with kRelease whose point passed an end
};

// Appends the rows of `joint` (warm-started from joint.forces). For kCurve it also
// advances joint.curve_segment to the segment nearest the point.
JointRowsResult AppendJointRows(Joint& joint, const JointSide& a, const JointSide& b,
                                ConstraintRows* rows);

}  // namespace ligature
