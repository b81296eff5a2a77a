#pragma once
// An oriented strand (hair, braid, ear, foliage): a tree of rigid segments joined by
// spherical joints, hanging from a base link whose motion is prescribed. This is the
// constant model; StrandState (strand_state.h) is what changes.
//
// Frames. Segment i has a frame with its origin at its joint (the segment's start) and its
// local y-axis along the segment, which runs from 0 to length(i) along y. The joint of
// segment i sits at the tip (0, length(parent), 0) of its parent segment, or, for a root
// segment (parent -1), at the first point of the rest curve, in the base frame. The joint
// quaternion q_i is the orientation of segment i's frame relative to its parent's (or the
// base's) frame; the joint velocity w_i is the angular velocity of segment i relative to its
// parent, in segment i's own coordinates.
//
// Rest shape. The desc's points give the rest curve in the base frame. Rest frames are
// carried along the curve by parallel transport (the smallest rotation taking the parent's
// axis onto the child's), so the rest joints are pure bends with zero twist.
//
// Material. Bending and twisting are given as rigidities (N m^2, per unit length, like E I
// and G J); the joint of segment i gets rigidity / length(i) as its angular stiffness
// (N m / rad at small angles). Damping likewise (N m^2 s). Air drag is linear in the
// segment's centre velocity: force = -drag * length * v (drag in N s / m^2).

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "server/math/types.h"

namespace ligature {

// Material of one segment (and of the joint at its start).
struct StrandMaterial {
  double mass_per_length = 0.01;  // kg/m, > 0
  double radius = 0.001;          // m, > 0 (inertia about the axis, collisions)
  double bend_rigidity_x = 0.0;   // N m^2, >= 0: bending about the local x-axis
  double bend_rigidity_z = 0.0;   // N m^2, >= 0: bending about the local z-axis
  double twist_rigidity = 0.0;    // N m^2, >= 0: twist about the local y-axis
  double bend_damping_x = 0.0;    // N m^2 s, >= 0
  double bend_damping_z = 0.0;    // N m^2 s, >= 0
  double twist_damping = 0.0;     // N m^2 s, >= 0
  double drag = 0.0;              // N s / m^2, >= 0
};

struct StrandDesc {
  // Rest curve in the base frame: segment i runs from its start point (the tip of its
  // parent, or points[0] for a root) to points[i + 1]. At least two points.
  std::vector<Vec3> points;
  // Parent segment of each segment (-1: attached to the base), each < its own index.
  // Empty: a serial chain (parent of i is i - 1).
  std::vector<int> parents;
  // One material for all segments, or one per segment.
  std::vector<StrandMaterial> materials = std::vector<StrandMaterial>(1);
};

// Per-segment materials from a function of the arc length s (m, along the tree from the
// base to the segment's midpoint). Fails like StrandModel::Make on a bad curve.
absl::StatusOr<std::vector<StrandMaterial>> MaterialsAlongLength(
    const StrandDesc& desc, const std::function<StrandMaterial(double s)>& material);

// Derived, constant data of one segment.
struct StrandSegment {
  int parent = -1;
  double length = 0.0;        // m
  double mass = 0.0;          // kg
  double radius = 0.0;        // m
  Vec3 attach = Vec3::Zero(); // joint position in the parent's (or base's) frame, m
  Quat rest = Quat::Identity();  // rest joint quaternion
  Mat6 inertia;               // spatial inertia about the joint, segment coordinates
  Vec3 stiffness = Vec3::Zero();  // joint stiffness about local x, y (twist), z: N m / rad
  Vec3 damping = Vec3::Zero();    // joint damping about local x, y, z: N m s / rad
  double drag = 0.0;          // N s / m (whole segment)
  double arc_start = 0.0;     // m, arc length from the base to the joint
};

class StrandModel {
 public:
  // Fails with INVALID_ARGUMENT naming the field on an empty or degenerate curve, a
  // zero-length segment, bad parents, or a negative, zero or non-finite material value.
  static absl::StatusOr<StrandModel> Make(const StrandDesc& desc);

  int segments() const { return static_cast<int>(segments_.size()); }
  const StrandSegment& segment(int i) const { return segments_[i]; }
  const std::vector<StrandSegment>& all() const { return segments_; }
  const std::vector<int>& children(int i) const { return children_[i]; }
  // Segments attached to the base.
  const std::vector<int>& roots() const { return roots_; }
  double total_mass() const;
  double total_length() const;

  // Replaces the rest joint quaternions (zero-gravity rest shape, art direction).
  void set_rest(int i, const Quat& q) { segments_[i].rest = q.normalized(); }

 private:
  std::vector<StrandSegment> segments_;
  std::vector<std::vector<int>> children_;
  std::vector<int> roots_;
};

// Rest shape helpers: the smallest rotation taking unit vector a onto unit vector b.
Quat SmallestRotation(const Vec3& a, const Vec3& b);

}  // namespace ligature
