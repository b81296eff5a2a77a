#pragma once
// URDF import: a robot description (links, joints, collision geometry, inertials) as the
// bodies and constraints of a ligature.v1.Scene, ready to merge into a scene or send to a
// world. Robots are placed at the given joint positions (zero unless set).
//
// Mapping:
//  - A link with <inertial> (mass > 0; a zero mass counts as none) becomes a rigid body at
//    its world pose, with material.mass and material.inertia (centre of mass = the inertial
//    origin, tensor turned into link axes). The root link is STATIC when options.fixed_base
//    is set (the default); a static body carries no mass.
//  - Collisions: box -> Box; sphere -> Sphere; cylinder (along local Z) -> the ConvexHull of
//    a 32-sided prism inscribed in it; mesh -> MeshAssetShape naming the file (absolute path),
//    as a hull on moving bodies, as a triangle mesh on a static root. One collision at the
//    link origin is the plain shape; otherwise a Compound of children at their origins, in
//    which a mesh always collides as its convex hull (a compound holds no triangle mesh; the
//    importer reports it). A link without collision gets a 5 mm sphere at its centre of mass.
//  - A link without <inertial> fixed to its parent is merged into it (its collisions become
//    compound children of the parent). A root without <inertial> (a "world" link) is no body:
//    joints from it (and from massless links fixed to it) hold their children to the world,
//    and its collisions, if any, become one STATIC body. A moving joint to a link without
//    <inertial> is an error.
//  - Joints: revolute -> HingeJoint with limits; continuous -> HingeJoint; prismatic ->
//    SliderJoint with limits; fixed -> FixedJoint; floating -> nothing (the child is free).
//    Ligature's joint axis is the frames' X axis: both frames are turned so that X lies along
//    the URDF axis, so a positive URDF joint value is a positive Ligature angle or offset.
//    Body A is the parent; a joint to the world has the child as body A (the world is always
//    B), with its frames' X axes along the opposite of the URDF axis, which keeps the sign.
//  - Reported in `unsupported`, one line each, and otherwise ignored: planar joints (the
//    child moves freely), <mimic> (the joint moves freely), velocity limits, effort limits
//    (unless drives are asked for: they cap the drives), <dynamics>, <safety_controller>,
//    <calibration>, <transmission>, <gazebo>. Visuals and
//    materials are not physics and are skipped silently.
// Collision filtering does not exist yet: bodies joined by a constraint do not collide with
// each other, every other pair does, so a robot's links should not overlap at its start.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"

namespace ligature::client {

struct UrdfOptions {
  // Prepended to every body and constraint id (then made a valid id). Unset: the robot name
  // made a valid id, followed by "-".
  std::optional<std::string> id_prefix;
  // Where the robot's root frame goes in the world (m, unit quaternion; an all-zero
  // quaternion is the identity).
  v1::Pose base_pose;
  // URDF frames are Z-up, Ligature's world is Y-up: when set, the robot is turned by -90
  // degrees about X (its Z onto world Y) before base_pose applies.
  bool y_up = true;
  // The root link is a STATIC body; unset, it moves (DYNAMIC) like every other link.
  bool fixed_base = true;
  // package:// URIs: package name -> its folder.
  std::map<std::string, std::string> package_dirs;
  // Initial joint values by URDF joint name (rad for revolute and continuous joints, m for
  // prismatic ones); joints not named start at 0. Naming an unknown or fixed joint is an
  // error.
  std::map<std::string, double> joint_positions;
  // Position drives on the moving joints, for teleoperation through drive targets: when set,
  // each revolute, continuous and prismatic joint gets a spring drive with these gains
  // holding its initial value, its torque or force at most the joint's URDF effort limit
  // (unbounded where the URDF gives none or 0). Unset: the joints move freely.
  struct Drives {
    double stiffness = 0.0;  // N m/rad or N/m, >= 0
    double damping = 0.0;    // N m s/rad or N s/m, >= 0; stiffness + damping > 0
  };
  std::optional<Drives> drives;
};

struct UrdfImport {
  v1::Scene scene;                       // bodies and constraints only
  std::vector<std::string> unsupported;  // one line per element ignored, naming it
};

// Reads the URDF file at `path`; mesh paths are relative to its folder. NOT_FOUND for a
// missing file, mesh or package; INVALID_ARGUMENT for a robot that cannot be imported. The
// message names the file and the element.
absl::StatusOr<UrdfImport> ImportUrdf(const std::string& path, const UrdfOptions& options);

// The same from the URDF text; relative mesh paths are resolved against `base_dir`.
absl::StatusOr<UrdfImport> ImportUrdfXml(const std::string& xml, const std::string& base_dir,
                                         const UrdfOptions& options);

}  // namespace ligature::client
