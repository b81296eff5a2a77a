#pragma once
// A constraint on one strand of a world, as clients describe it: one of the strand
// model's analytic constraints (strand_constraints.h) with a target that may ride on a
// rigid body. The world turns it into the model's constraint each step.

#include <string>
#include <vector>

#include "server/math/transform.h"

namespace ligature {

enum class StrandConstraintKind { kPoint, kCurve, kJointValue, kJointLimit };

struct StrandConstraintDesc {
  std::string id;
  StrandConstraintKind kind = StrandConstraintKind::kPoint;
  std::string body;  // the strand's body id
  int segment = 0;
  Vec3 point = Vec3::Zero();  // m, segment frame (y along the segment from its joint)
  // kPoint: the target, in the world or, with follow_body, in that body's frame.
  Vec3 target = Vec3::Zero();
  std::string follow_body;
  std::vector<Vec3> curve;          // kCurve: world polyline
  Quat joint = Quat::Identity();    // kJointValue: relative to the parent
  double max_bend = 0.5;            // kJointLimit: rad
  double margin = 0.05;             // kJointLimit: rad
};

}  // namespace ligature
