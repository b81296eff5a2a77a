#pragma once
// The local model a world exports for one tool after each tick: what the haptic thread
// needs to compute forces for device poses until the next tick, without touching the world.
//
// Following the constraint-space view (W = H C H^T), the model holds the tool's own
// dynamics (mass, inertia, state) and, around it, the obstacles in constraint space:
//  - contact planes with rigid bodies and rods (point on the tool, normal, gap, the
//    obstacle's compliance along the normal over one world tick: 0 for a static body, and
//    the Coulomb friction coefficient of the pair);
//  - buffers near soft bodies: the vertices within reach of the tool, the compliance
//    block that couples them (the world's implicit system, h^2 A^-1, restricted to them)
//    and the surface triangles between them, so that a thin tool cannot pass between the
//    vertices of a coarse mesh.
// A model is immutable once published; worlds publish a new one every tick.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature::haptics {

// A soft vertex this near a tool's surface meets the tool (m): it is a row of the haptic
// solve. A feature of the tool (an edge or corner, a sphere's or capsule's core) with such
// a vertex meets the body at its vertices alone, in the world as in the local model; one
// without meets the faces between them.
inline constexpr double kToolVertexReach = 0.005;

// The tool's rigid state, pose of its centre of mass.
struct ToolState {
  Vec3 position = Vec3::Zero();  // m, centre of mass
  Quat orientation = Quat::Identity();
  Vec3 linear_velocity = Vec3::Zero();   // m/s
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
};

struct ContactPlane {
  Vec3 point = Vec3::Zero();     // m, world: contact point on the tool's surface
  Vec3 normal = Vec3::UnitY();   // unit: the direction the contact pushes the tool
  double gap = 0.0;              // m, signed distance to the obstacle (< 0: overlap)
  double compliance = 0.0;       // m/N, the obstacle's yield over one world tick
  double friction = 0.0;         // Coulomb coefficient (0: frictionless)
  std::string body;              // the obstacle's id
};

struct BufferModel {
  std::string body;                        // the soft body's id
  std::vector<int> vertex_indices;         // in the soft body
  // m, world: where the vertices would be at the end of the tick without the tool's press.
  std::vector<Vec3> positions;
  // m, world: where they are, pressed (empty: as `positions`). A vertex the tool touches
  // sticks to the tool's point there until friction gives.
  std::vector<Vec3> anchors;
  Eigen::MatrixXd compliance;              // m/N, 3n x 3n
  double friction = 0.0;                   // Coulomb coefficient with the tool (0: none)
  std::vector<std::array<int, 4>> tets;    // buffer-local vertex indices
  // Surface triangles whose three vertices are in the buffer, buffer-local, counter-clockwise
  // seen from outside the body.
  std::vector<std::array<int, 3>> faces;
};

struct ToolLocalModel {
  uint64_t tick = 0;
  double sim_time = 0.0;   // s
  double dt = 0.0;         // s, the world's tick
  Vec3 gravity = Vec3::Zero();
  ToolState tool;
  double mass = 0.0;                      // kg
  Mat3 inertia_local = Mat3::Identity();  // kg m^2, centre-of-mass axes
  Vec3 center_local = Vec3::Zero();       // m, centre of mass in the body frame
  std::vector<ChildShape> shapes;         // in the centre-of-mass frame
  std::vector<ContactPlane> planes;
  std::vector<BufferModel> buffers;
  bool tool_removed = false;
  // Monotonic time (s) when the world published it; set by the receiving side's clock for
  // models that crossed a network.
  double published_at = 0.0;
};

}  // namespace ligature::haptics
