#include "tests/bench/peers/ode_scene.h"

#include <ode/ode.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/bench/peers/peer_body.h"

namespace ligature::bench {
namespace {

// dCollide's cap per geom pair; like a Bullet manifold, four points hold a face at rest.
constexpr int kMaxContactsPerPair = 4;

// ODE's library state, set up once per process for this (the only) thread that steps ODE.
void InitOdeOnce() {
  static const bool initialized = [] {
    dInitODE2(0);
    dAllocateODEDataForThread(dAllocateMaskAll);
    return true;
  }();
  (void)initialized;
}

// ODE quaternions are (w, x, y, z).
void ToOde(const Quat& q, dQuaternion out) {
  out[0] = q.w();
  out[1] = q.x();
  out[2] = q.y();
  out[3] = q.z();
}

// ODE's capsule runs along local Z, ours along Y: a geom's rotation is ours times this
// quarter turn about X, which takes Z onto Y.
Quat CapsuleAxisFix(const Shape& shape) {
  if (shape.type != ShapeType::kCapsule) return Quat::Identity();
  return Quat(Eigen::AngleAxisd(-std::numbers::pi / 2.0, Vec3::UnitX()));
}

class OdeScene : public SteppedScene {
 public:
  explicit OdeScene(const WorldSettings& settings);
  ~OdeScene() override;

  // Adds the ODE twin of `desc`, or fails on a shape or kind the peer does not map.
  absl::Status AddBody(const BodyDesc& desc);

  // Collision into a fresh group of contact joints, then one quickstep of dt.
  void Step() override;
  int Contacts() const override { return contacts_; }
  std::string Notes() const override;
  std::optional<std::array<double, 3>> Position(size_t index) const override {
    if (index >= bodies_.size() || bodies_[index] == nullptr) return std::nullopt;
    const dReal* p = dBodyGetPosition(bodies_[index]);
    return std::array<double, 3>{p[0], p[1], p[2]};
  }

 private:
  // dSpaceCollide's callback: contact joints for one pair of geoms.
  static void NearCallback(void* data, dGeomID a, dGeomID b);
  // A geom for one of our primitives, in the space, not yet placed.
  dGeomID CreateGeom(const Shape& shape);

  dReal dt_;
  int iterations_ = 0;
  dWorldID world_ = nullptr;
  dSpaceID space_ = nullptr;
  dJointGroupID contacts_group_ = nullptr;
  std::deque<Material> materials_;  // one per body, pointed to by its geoms' data
  int contacts_ = 0;                // contact joints made by the last step
  std::vector<dBodyID> bodies_;     // per scene body, in order; null for static ones
};

OdeScene::OdeScene(const WorldSettings& settings)
    : dt_(settings.dt()), iterations_(settings.solver.max_iterations) {
  InitOdeOnce();
  world_ = dWorldCreate();
  dWorldSetGravity(world_, settings.gravity.x(), settings.gravity.y(), settings.gravity.z());
  dWorldSetQuickStepNumIterations(world_, iterations_);
  // Bodies never sleep, as in our engine; a thin surface layer keeps resting contacts
  // from jittering, as ODE's own demos do.
  dWorldSetAutoDisableFlag(world_, 0);
  dWorldSetContactSurfaceLayer(world_, 0.001);
  space_ = dHashSpaceCreate(nullptr);
  contacts_group_ = dJointGroupCreate(0);
}

OdeScene::~OdeScene() {
  // The space destroys its geoms (cleanup mode is on by default); the world its bodies.
  dJointGroupDestroy(contacts_group_);
  dSpaceDestroy(space_);
  dWorldDestroy(world_);
}

void OdeScene::Step() {
  contacts_ = 0;
  dSpaceCollide(space_, this, &OdeScene::NearCallback);
  dWorldQuickStep(world_, dt_);
  dJointGroupEmpty(contacts_group_);
}

void OdeScene::NearCallback(void* data, dGeomID a, dGeomID b) {
  OdeScene* self = static_cast<OdeScene*>(data);
  const dBodyID body_a = dGeomGetBody(a);
  const dBodyID body_b = dGeomGetBody(b);
  // Two static geoms, or two shapes of one compound, never touch.
  if (body_a == body_b) return;
  dContact contact[kMaxContactsPerPair];
  const int count = dCollide(a, b, kMaxContactsPerPair, &contact[0].geom, sizeof(dContact));
  if (count == 0) return;
  // Friction as in our engine: the geometric mean; restitution: the larger.
  const Material* ma = static_cast<const Material*>(dGeomGetData(a));
  const Material* mb = static_cast<const Material*>(dGeomGetData(b));
  const double mu = std::sqrt(ma->friction * mb->friction);
  const double bounce = std::max(ma->restitution, mb->restitution);
  for (int i = 0; i < count; ++i) {
    dSurfaceParameters& surface = contact[i].surface;
    surface.mode = dContactApprox1;
    surface.mu = mu;
    if (bounce > 0.0) {
      surface.mode |= dContactBounce;
      surface.bounce = bounce;
      surface.bounce_vel = 0.0;
    }
    const dJointID joint = dJointCreateContact(self->world_, self->contacts_group_, &contact[i]);
    dJointAttach(joint, body_a, body_b);
  }
  self->contacts_ += count;
}

dGeomID OdeScene::CreateGeom(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kSphere:
      return dCreateSphere(space_, shape.radius);
    case ShapeType::kBox: {
      const Vec3 size = 2.0 * shape.half_extents;
      return dCreateBox(space_, size.x(), size.y(), size.z());
    }
    case ShapeType::kCapsule:
      return dCreateCapsule(space_, shape.radius, 2.0 * shape.half_length);
    case ShapeType::kPlane:
    case ShapeType::kHull:
    case ShapeType::kMesh:
      return nullptr;  // callers map planes themselves; hulls and meshes are refused
                       // (CheckPeerBody)
  }
  return nullptr;
}

absl::Status OdeScene::AddBody(const BodyDesc& desc) {
  if (absl::Status ok = CheckPeerBody(desc, "ode peer", false, false); !ok.ok()) return ok;
  const RigidBodyDesc& rigid = *desc.rigid();
  materials_.push_back(rigid.material);
  Material* material = &materials_.back();

  // A plane: ODE's takes the world normal (the body's +Y) and its offset along it.
  if (IsPlane(rigid)) {
    const Vec3 n = rigid.pose.orientation.normalized() * Vec3::UnitY();
    const dGeomID plane = dCreatePlane(space_, n.x(), n.y(), n.z(), n.dot(rigid.pose.position));
    dGeomSetData(plane, material);
    bodies_.push_back(nullptr);
    return absl::OkStatus();
  }
  const std::vector<ChildShape> children = BodyChildren(rigid);

  // A static body: body-less geoms at their world poses.
  const Transform pose{rigid.pose.position, rigid.pose.orientation.normalized()};
  if (desc.kind == BodyKind::kStatic) {
    for (const ChildShape& child : children) {
      const Transform world = pose * child.local;
      const dGeomID geom = CreateGeom(child.shape);
      dQuaternion q;
      ToOde(world.orientation * CapsuleAxisFix(child.shape), q);
      dGeomSetPosition(geom, world.position.x(), world.position.y(), world.position.z());
      dGeomSetQuaternion(geom, q);
      dGeomSetData(geom, material);
    }
    bodies_.push_back(nullptr);
    return absl::OkStatus();
  }

  // A dynamic body: ODE wants the centre of mass at the body origin (as our engine keeps
  // it) and takes the full inertia tensor in the body's axes.
  const PeerMass mass = BodyMass(rigid);
  const Transform center = CenterOfMassPose(rigid, mass.center);
  const dBodyID body = dBodyCreate(world_);
  bodies_.push_back(body);
  dMass m;
  const Mat3& i = mass.inertia;
  dMassSetParameters(&m, mass.mass, 0.0, 0.0, 0.0, i(0, 0), i(1, 1), i(2, 2), i(0, 1), i(0, 2),
                     i(1, 2));
  dBodySetMass(body, &m);
  dQuaternion q;
  ToOde(center.orientation, q);
  dBodySetPosition(body, center.position.x(), center.position.y(), center.position.z());
  dBodySetQuaternion(body, q);
  dBodySetLinearVel(body, rigid.linear_velocity.x(), rigid.linear_velocity.y(),
                    rigid.linear_velocity.z());
  dBodySetAngularVel(body, rigid.angular_velocity.x(), rigid.angular_velocity.y(),
                     rigid.angular_velocity.z());

  // One geom per shape, offset from the centre of mass.
  for (const ChildShape& child : children) {
    const dGeomID geom = CreateGeom(child.shape);
    dGeomSetBody(geom, body);
    const Vec3 offset = child.local.position - mass.center;
    const Quat rotation = child.local.orientation.normalized() * CapsuleAxisFix(child.shape);
    if (!offset.isZero(0.0)) dGeomSetOffsetPosition(geom, offset.x(), offset.y(), offset.z());
    if (rotation.coeffs() != Quat::Identity().coeffs()) {
      dQuaternion offset_q;
      ToOde(rotation, offset_q);
      dGeomSetOffsetQuaternion(geom, offset_q);
    }
    dGeomSetData(geom, material);
  }
  return absl::OkStatus();
}

std::string OdeScene::Notes() const {
  return absl::StrCat("peer iterations=", iterations_, " erp=", dWorldGetERP(world_),
                      " cfm=", dWorldGetCFM(world_),
                      " surface_layer=", dWorldGetContactSurfaceLayer(world_),
                      " contacts/pair<=", kMaxContactsPerPair);
}

}  // namespace

bool OdePeerAvailable() { return true; }

std::string OdePeerName() {
  // dODE_VERSION is "major.minor.patch"; the name keeps major.minor.
  const std::string version = dODE_VERSION;
  const size_t second_dot = version.find('.', version.find('.') + 1);
  return "ode-" + version.substr(0, second_dot) + "-quickstep";
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeOdeScene(const SceneDesc& scene) {
  // Settings the peer needs in range; SceneFromProto already checks scenes from files.
  if (!(scene.settings.rate_hz > 0.0) || scene.settings.solver.max_iterations <= 0) {
    return absl::InvalidArgumentError("ode peer: rate_hz and max_iterations must be > 0");
  }
  if (!scene.constraints.empty()) {
    return absl::InvalidArgumentError("ode peer: constraints are not supported");
  }
  // One ODE body (or static geom set) per scene body, in scene order.
  auto peer = std::make_unique<OdeScene>(scene.settings);
  for (const BodyDesc& body : scene.bodies) {
    absl::Status added = peer->AddBody(body);
    if (!added.ok()) return added;
  }
  return peer;
}

}  // namespace ligature::bench
