#include "tests/bench/peers/peer_body.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

#include "server/model/rigid/mass_properties.h"

namespace ligature::bench {

absl::Status CheckPeerBody(const BodyDesc& desc, absl::string_view peer, bool maps_hulls,
                           bool maps_meshes) {
  const std::string where = absl::StrCat(peer, ": body \"", desc.id, "\": ");
  if (!desc.is_rigid()) {
    return absl::InvalidArgumentError(where + "only rigid bodies are supported");
  }
  if (desc.kind == BodyKind::kKinematic) {
    return absl::InvalidArgumentError(where + "kinematic bodies are not supported");
  }
  const RigidBodyDesc& rigid = *desc.rigid();
  if (IsPlane(rigid)) {
    if (desc.kind != BodyKind::kStatic) {
      return absl::InvalidArgumentError(where + "only static planes are supported");
    }
    return absl::OkStatus();
  }
  for (const ChildShape& child : BodyChildren(rigid)) {
    if (child.shape.type == ShapeType::kPlane) {
      return absl::InvalidArgumentError(where + "a plane cannot be a compound child");
    }
    if (child.shape.type == ShapeType::kHull && !maps_hulls) {
      return absl::InvalidArgumentError(where + "hulls are not supported");
    }
    if (child.shape.type == ShapeType::kMesh && !maps_meshes) {
      return absl::InvalidArgumentError(where + "meshes are not supported");
    }
  }
  return absl::OkStatus();
}

bool IsPlane(const RigidBodyDesc& desc) {
  return desc.children.empty() && desc.shape.type == ShapeType::kPlane;
}

std::vector<ChildShape> BodyChildren(const RigidBodyDesc& desc) {
  if (!desc.children.empty()) return desc.children;
  return {ChildShape{desc.shape, Transform{}}};
}

PeerMass BodyMass(const RigidBodyDesc& desc) {
  const CompoundMass mass = ComputeCompoundMass(BodyChildren(desc), desc.material);
  return {mass.mass, mass.center, mass.inertia};
}

PrincipalAxes ComputePrincipalAxes(const Mat3& inertia) {
  PrincipalAxes axes;
  // Already diagonal (every single shape): keep the body's axes as they are.
  const Mat3 off = inertia - Mat3(inertia.diagonal().asDiagonal());
  if (off.cwiseAbs().maxCoeff() <= 1e-12 * inertia.trace()) {
    axes.moments = inertia.diagonal();
    return axes;
  }
  // Otherwise the symmetric eigen-decomposition; flip one axis if needed so the eigenvector
  // matrix is a rotation rather than a reflection.
  const Eigen::SelfAdjointEigenSolver<Mat3> solver(inertia);
  Mat3 rotation = solver.eigenvectors();
  if (rotation.determinant() < 0.0) rotation.col(2) = -rotation.col(2);
  axes.rotation = Quat(rotation).normalized();
  axes.moments = solver.eigenvalues();
  return axes;
}

Transform CenterOfMassPose(const RigidBodyDesc& desc, const Vec3& center) {
  const Quat orientation = desc.pose.orientation.normalized();
  return {desc.pose.position + orientation * center, orientation};
}

}  // namespace ligature::bench
