#pragma once
// What every peer needs from one of our rigid body descriptions to build the same physical
// body: whether it can (one check for all peers), its shapes as a list of children, and its
// mass, centre of mass and inertia computed by our engine's own functions, so that both
// sides start from identical masses and states.

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/math/transform.h"
#include "server/model/rigid/body_desc.h"

namespace ligature::bench {

// Whether a peer can build `desc`: a dynamic or static rigid body, whose plane, if it has
// one, is the whole of a static body, and with hulls and meshes only where the peer maps
// them. INVALID_ARGUMENT naming `peer` and the body otherwise.
absl::Status CheckPeerBody(const BodyDesc& desc, absl::string_view peer, bool maps_hulls,
                           bool maps_meshes);

// Whether the body is a single plane.
bool IsPlane(const RigidBodyDesc& desc);

// The body's shapes in its frame: its children, or its single shape at the origin.
std::vector<ChildShape> BodyChildren(const RigidBodyDesc& desc);

// A dynamic body's mass as our engine computes it (ComputeCompoundMass over BodyChildren):
// material.mass when > 0, else density * volume.
struct PeerMass {
  double mass = 0.0;            // kg
  Vec3 center = Vec3::Zero();   // centre of mass in the body frame (m)
  Mat3 inertia = Mat3::Zero();  // about the centre of mass, body axes (kg m^2)
};
PeerMass BodyMass(const RigidBodyDesc& desc);

// Principal axes of an inertia tensor: inertia = rotation * diag(moments) * rotation^T,
// with rotation a proper rotation (its columns are the axes in the body frame). A tensor
// that is already diagonal keeps the identity, so single shapes need no compound wrapper.
struct PrincipalAxes {
  Quat rotation = Quat::Identity();
  Vec3 moments = Vec3::Zero();
};
PrincipalAxes ComputePrincipalAxes(const Mat3& inertia);

// The world pose of the body's centre of mass, with the body's own axes (as our engine
// keeps it).
Transform CenterOfMassPose(const RigidBodyDesc& desc, const Vec3& center);

}  // namespace ligature::bench
