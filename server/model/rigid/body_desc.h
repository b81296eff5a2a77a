#pragma once
// Description of a rigid body as clients give it: the input to the model and to scene files.

#include <optional>
#include <string>
#include <vector>

#include "server/geometry/shape.h"
#include "server/math/transform.h"
#include "server/model/rod/rod_model.h"
#include "server/model/soft/scalpel_desc.h"
#include "server/model/soft/soft_body_desc.h"
#include "server/model/strand/strand_body_desc.h"

namespace ligature {

enum class BodyKind : uint8_t { kDynamic = 0, kKinematic = 1, kStatic = 2 };

struct Material {
  double density = 1000.0;   // kg/m^3
  double mass = 0.0;         // kg; > 0 overrides density
  double friction = 0.5;     // Coulomb coefficient
  double restitution = 0.0;  // [0, 1]
};

struct BodyDesc {
  std::string id;
  BodyKind kind = BodyKind::kDynamic;
  Shape shape;                       // a single shape at the body origin, or ...
  std::vector<ChildShape> children;  // ... when not empty: a compound of these (no planes)
  Material material;
  Transform pose;
  Vec3 linear_velocity = Vec3::Zero();   // m/s
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
  // Set for a rod (a deformable 1D body): the fields above other than id and kind are
  // then unused, and a kind other than dynamic holds the rod in place.
  std::optional<RodDesc> rod;
  // Set for a soft body (mesh, model and material); the rigid fields are then unused.
  std::optional<SoftBodyDesc> soft;
  // Set for a rigid body that is a cutting tool.
  std::optional<ScalpelDesc> scalpel;
  // Set for a strand (its base frame, curve, materials, art direction); the rigid fields
  // are then unused.
  std::optional<StrandBodyDesc> strand;
};

}  // namespace ligature
