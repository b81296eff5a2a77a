#pragma once
// Description of a body as clients give it (a rigid body, a rod, a soft body or a strand):
// the input to the world and to scene files.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/geometry/shape.h"
#include "server/math/transform.h"
#include "server/model/rod/rod_model.h"
#include "server/model/soft/scalpel_desc.h"
#include "server/model/soft/soft_body_desc.h"
#include "server/model/strand/strand_body_desc.h"

namespace ligature {

enum class BodyKind : uint8_t { kDynamic = 0, kKinematic = 1, kStatic = 2 };

// A body's centre of mass and inertia as given (a robot link's inertials), instead of
// those of its shape.
struct GivenInertia {
  Vec3 center = Vec3::Zero();      // m, body frame
  Mat3 tensor = Mat3::Identity();  // kg m^2, body axes, about the centre
};

struct Material {
  double density = 1000.0;   // kg/m^3
  double mass = 0.0;         // kg; > 0 overrides density
  double friction = 0.5;     // Coulomb coefficient
  double restitution = 0.0;  // [0, 1]
  // Rolling and spinning resistance as lever arms (m, >= 0): a contact's torque about its
  // tangents is bounded by rolling_friction times its normal force, about its normal by
  // spinning_friction times it. A contact uses the geometric mean of its bodies' values.
  double rolling_friction = 0.0;
  double spinning_friction = 0.0;
  // With mass > 0: the centre and tensor used instead of the shape's. Fixed when the body
  // is added: a later material keeps the body's own.
  std::optional<GivenInertia> inertia;
};

// A rigid body: its shape, material, where it is and how it moves, and whether it is a
// cutting tool.
struct RigidBodyDesc {
  Shape shape;                       // a single shape at the body origin, or ...
  std::vector<ChildShape> children;  // ... when not empty: a compound of these (no planes)
  Material material;
  Transform pose;                        // world, of the body's frame (m)
  CollisionFilter collision;             // its shapes' layers and mask (children may differ)
  Vec3 linear_velocity = Vec3::Zero();   // m/s
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
  // Set for a rigid body that is a cutting tool.
  std::optional<ScalpelDesc> scalpel;
};

// A body of a world as clients describe it: an id, how it moves, and what it is (a rigid
// body, a rod, a soft body or a strand) with that kind's own description.
struct BodyDesc {
  std::string id;
  // Rigid bodies: dynamic, kinematic or static. Rods: a kind other than dynamic holds the
  // rod in place. Soft bodies and strands do not use it.
  BodyKind kind = BodyKind::kDynamic;
  // What the body is; a rigid body unless set otherwise. A rod is a deformable 1D body; a
  // soft body carries its mesh, model and material; a strand its base frame, curve,
  // materials and art direction.
  std::variant<RigidBodyDesc, RodDesc, SoftBodyDesc, StrandBodyDesc> body;

  // Whether the body is rigid, and its description as each kind (null for the other
  // kinds).
  bool is_rigid() const { return std::holds_alternative<RigidBodyDesc>(body); }
  const RigidBodyDesc* rigid() const { return std::get_if<RigidBodyDesc>(&body); }
  RigidBodyDesc* rigid() { return std::get_if<RigidBodyDesc>(&body); }
  const RodDesc* rod() const { return std::get_if<RodDesc>(&body); }
  RodDesc* rod() { return std::get_if<RodDesc>(&body); }
  const SoftBodyDesc* soft() const { return std::get_if<SoftBodyDesc>(&body); }
  SoftBodyDesc* soft() { return std::get_if<SoftBodyDesc>(&body); }
  const StrandBodyDesc* strand() const { return std::get_if<StrandBodyDesc>(&body); }
  StrandBodyDesc* strand() { return std::get_if<StrandBodyDesc>(&body); }
};

}  // namespace ligature
