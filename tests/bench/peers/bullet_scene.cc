#include "tests/bench/peers/bullet_scene.h"

#include <BulletCollision/CollisionDispatch/btInternalEdgeUtility.h>
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/bench/peers/peer_body.h"

namespace ligature::bench {
namespace {

btVector3 ToBullet(const Vec3& v) {
  return btVector3(static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()),
                   static_cast<btScalar>(v.z()));
}

btQuaternion ToBullet(const Quat& q) {
  return btQuaternion(static_cast<btScalar>(q.x()), static_cast<btScalar>(q.y()),
                      static_cast<btScalar>(q.z()), static_cast<btScalar>(q.w()));
}

// m: the collision margin of Bullet's hulls (see BulletScene::Primitive).
constexpr double kHullMargin = 0.001;

btTransform ToBullet(const Transform& t) {
  return btTransform(ToBullet(t.orientation), ToBullet(t.position));
}

// Bullet's internal-edge correction, for each new contact point on a mesh body (one with
// CF_CUSTOM_MATERIAL_CALLBACK): the mesh's wrapper goes first.
bool AdjustMeshEdges(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int part0,
                     int index0, const btCollisionObjectWrapper* w1, int part1, int index1) {
  if (w0->getCollisionObject()->getCollisionShape()->getShapeType() ==
      TRIANGLE_MESH_SHAPE_PROXYTYPE) {
    btAdjustInternalEdgeContacts(cp, w0, w1, part0, index0);
  } else {
    btAdjustInternalEdgeContacts(cp, w1, w0, part1, index1);
  }
  return true;
}

// A mesh's data as Bullet reads it in place: vertices at Bullet's precision, indices, the
// array over them and the internal-edge information.
struct MeshBuffers {
  std::vector<btScalar> vertices;
  std::vector<int> indices;
  std::unique_ptr<btTriangleIndexVertexArray> array;
  std::unique_ptr<btTriangleInfoMap> edges;
};

class BulletScene : public SteppedScene {
 public:
  BulletScene(const WorldSettings& settings, const BulletSceneOptions& options);
  ~BulletScene() override;

  // Adds the Bullet twin of `desc`, or fails on a shape or kind the peer does not map.
  absl::Status AddBody(const BodyDesc& desc);
  // Adds the Bullet twin of a ball, hinge or fixed joint between bodies added before, or
  // fails naming the constraint.
  absl::Status AddJoint(const ConstraintDesc& desc);

  // Exactly one substep of dt: maxSubSteps = 0 makes Bullet step by timeStep as given.
  void Step() override { world_->stepSimulation(dt_, 0, dt_); }
  int Contacts() const override;
  std::string Notes() const override;
  // Bodies are added one per scene body, in scene order; static ones have no mass.
  std::optional<std::array<double, 3>> Position(size_t index) const override {
    if (index >= bodies_.size() || bodies_[index]->getInvMass() == 0.0f) return std::nullopt;
    const btVector3& p = bodies_[index]->getCenterOfMassPosition();
    return std::array<double, 3>{p.x(), p.y(), p.z()};
  }

 private:
  // A static plane: Bullet's takes the world normal and offset, on a body at the origin.
  void AddPlane(const RigidBodyDesc& desc);
  // The Bullet shape of one primitive, shared by every body and child of the same size as
  // a Bullet user would share it.
  btCollisionShape* Primitive(const Shape& shape);
  // A compound of `children`, each placed by `frame` (our body frame in Bullet's) times its
  // own pose.
  btCollisionShape* Compound(const std::vector<ChildShape>& children, const Transform& frame);
  // Creates the rigid body and adds it to the world.
  void AddRigidBody(const RigidBodyDesc& desc, btCollisionShape* shape, const Transform& pose,
                    double mass, const Vec3& inertia);

  btScalar dt_;
  bool allow_sleeping_ = false;
  int iterations_ = 0;
  // Destroyed in reverse order: bodies leave the world before the world goes.
  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_{&config_};
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<MeshBuffers>> mesh_buffers_;  // outlive the shapes over them
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  // Shared primitives by (type, radius, half_length, half_extents), owned by shapes_.
  std::map<std::tuple<int, double, double, double, double, double>, btCollisionShape*> primitives_;
  // Shared hulls by our hull, and meshes by our mesh, owned by shapes_.
  std::map<const ConvexHull*, btCollisionShape*> hulls_;
  std::map<const TriangleMesh*, btCollisionShape*> meshes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  // Per body id: its index in bodies_ and our body frame expressed in Bullet's (none for a
  // plane, whose Bullet body sits at the origin).
  struct Placed {
    size_t index = 0;
    std::optional<Transform> frame;
  };
  std::map<std::string, Placed> placed_;
  std::vector<std::unique_ptr<btTypedConstraint>> joints_;
};

BulletScene::BulletScene(const WorldSettings& settings, const BulletSceneOptions& options)
    : dt_(static_cast<btScalar>(settings.dt())),
      allow_sleeping_(options.allow_sleeping),
      iterations_(settings.solver.max_iterations) {
  world_ =
      std::make_unique<btDiscreteDynamicsWorld>(&dispatcher_, &broadphase_, &solver_, &config_);
  world_->setGravity(ToBullet(settings.gravity));
  world_->getSolverInfo().m_numIterations = iterations_;
  gContactAddedCallback = AdjustMeshEdges;
}

BulletScene::~BulletScene() {
  for (const auto& joint : joints_) world_->removeConstraint(joint.get());
  for (const auto& body : bodies_) world_->removeRigidBody(body.get());
}

btCollisionShape* BulletScene::Primitive(const Shape& shape) {
  // A hull: Bullet's convex hull of our hull's vertices, one per hull. Its collision margin
  // (a rounded shell Bullet adds around the vertices, 4 cm unless set) is 1 mm, and its
  // polyhedral features are on, so that hull-hull contacts are clipped face manifolds.
  if (shape.type == ShapeType::kHull) {
    btCollisionShape*& hull = hulls_[shape.hull.get()];
    if (hull != nullptr) return hull;
    auto bullet = std::make_unique<btConvexHullShape>();
    for (const Vec3& v : shape.hull->vertices) bullet->addPoint(ToBullet(v), false);
    bullet->recalcLocalAabb();
    bullet->setMargin(static_cast<btScalar>(kHullMargin));
    bullet->initializePolyhedralFeatures();
    hull = bullet.get();
    shapes_.push_back(std::move(bullet));
    return hull;
  }
  // A mesh: Bullet's bounding-volume-tree triangle mesh over our vertices and indices, with
  // its internal-edge information, so that contacts on flat seams are corrected as Bullet's
  // users do (btAdjustInternalEdgeContacts, from the contact-added callback).
  if (shape.type == ShapeType::kMesh) {
    btCollisionShape*& mesh = meshes_[shape.mesh.get()];
    if (mesh != nullptr) return mesh;
    MeshBuffers& buffers = *mesh_buffers_.emplace_back(std::make_unique<MeshBuffers>());
    for (const Vec3& v : shape.mesh->vertices) {
      for (int k = 0; k < 3; ++k) buffers.vertices.push_back(static_cast<btScalar>(v[k]));
    }
    for (const auto& t : shape.mesh->triangles) {
      buffers.indices.insert(buffers.indices.end(), t.begin(), t.end());
    }
    buffers.array = std::make_unique<btTriangleIndexVertexArray>(
        static_cast<int>(shape.mesh->triangles.size()), buffers.indices.data(),
        static_cast<int>(3 * sizeof(int)), static_cast<int>(shape.mesh->vertices.size()),
        buffers.vertices.data(), static_cast<int>(3 * sizeof(btScalar)));
    auto bvh = std::make_unique<btBvhTriangleMeshShape>(buffers.array.get(), true);
    buffers.edges = std::make_unique<btTriangleInfoMap>();
    btGenerateInternalEdgeInfo(bvh.get(), buffers.edges.get());
    mesh = bvh.get();
    shapes_.push_back(std::move(bvh));
    return mesh;
  }
  const Vec3& h = shape.half_extents;
  btCollisionShape*& cached = primitives_[{static_cast<int>(shape.type), shape.radius,
                                           shape.half_length, h.x(), h.y(), h.z()}];
  if (cached != nullptr) return cached;
  // Bullet's capsule runs along local Y with the cylinder's full height, like ours.
  switch (shape.type) {
    case ShapeType::kSphere:
      shapes_.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(shape.radius)));
      break;
    case ShapeType::kBox:
      shapes_.push_back(std::make_unique<btBoxShape>(ToBullet(h)));
      break;
    case ShapeType::kCapsule:
      shapes_.push_back(std::make_unique<btCapsuleShape>(
          static_cast<btScalar>(shape.radius), static_cast<btScalar>(2.0 * shape.half_length)));
      break;
    case ShapeType::kPlane:
    case ShapeType::kHull:
    case ShapeType::kMesh:
      return nullptr;  // callers map planes themselves; hulls and meshes are made above
  }
  cached = shapes_.back().get();
  return cached;
}

btCollisionShape* BulletScene::Compound(const std::vector<ChildShape>& children,
                                        const Transform& frame) {
  auto compound = std::make_unique<btCompoundShape>();
  for (const ChildShape& child : children) {
    compound->addChildShape(ToBullet(frame * child.local), Primitive(child.shape));
  }
  shapes_.push_back(std::move(compound));
  return shapes_.back().get();
}

void BulletScene::AddPlane(const RigidBodyDesc& desc) {
  // Our plane is the body's local XZ plane; Bullet's takes the world normal (the body's
  // +Y) and its offset along it.
  const Vec3 normal = desc.pose.orientation.normalized() * Vec3::UnitY();
  shapes_.push_back(std::make_unique<btStaticPlaneShape>(
      ToBullet(normal), static_cast<btScalar>(normal.dot(desc.pose.position))));
  AddRigidBody(desc, shapes_.back().get(), Transform{}, 0.0, Vec3::Zero());
}

void BulletScene::AddRigidBody(const RigidBodyDesc& desc, btCollisionShape* shape,
                               const Transform& pose, double mass, const Vec3& inertia) {
  btRigidBody::btRigidBodyConstructionInfo info(static_cast<btScalar>(mass), nullptr, shape,
                                                ToBullet(inertia));
  info.m_startWorldTransform = ToBullet(pose);
  // Bullet combines two bodies' coefficients by product; giving every body the square root
  // makes each contact's friction the geometric mean of the two, as in our engine.
  info.m_friction = static_cast<btScalar>(std::sqrt(desc.material.friction));
  info.m_restitution = static_cast<btScalar>(desc.material.restitution);
  bodies_.push_back(std::make_unique<btRigidBody>(info));
  btRigidBody* body = bodies_.back().get();
  if (mass > 0.0) {
    body->setLinearVelocity(ToBullet(desc.linear_velocity));
    body->setAngularVelocity(ToBullet(desc.angular_velocity));
    if (!allow_sleeping_) body->setActivationState(DISABLE_DEACTIVATION);
  }
  world_->addRigidBody(body);
}

absl::Status BulletScene::AddBody(const BodyDesc& desc) {
  if (absl::Status ok = CheckPeerBody(desc, "bullet peer", true, true); !ok.ok()) return ok;
  const RigidBodyDesc& rigid = *desc.rigid();
  // A plane is a body of its own.
  if (IsPlane(rigid)) {
    placed_[desc.id] = {bodies_.size(), std::nullopt};
    AddPlane(rigid);
    return absl::OkStatus();
  }
  const std::vector<ChildShape> children = BodyChildren(rigid);

  // A static body stays at its pose with its shapes as given. A dynamic body's Bullet frame
  // is its centre of mass in its principal axes (Bullet takes a diagonal inertia), and its
  // shapes move into that frame.
  Transform pose{rigid.pose.position, rigid.pose.orientation.normalized()};
  Transform shapes_frame;  // our body frame expressed in Bullet's body frame
  double mass = 0.0;
  Vec3 inertia = Vec3::Zero();
  if (desc.kind == BodyKind::kDynamic) {
    const PeerMass body_mass = BodyMass(rigid);
    const PrincipalAxes axes = ComputePrincipalAxes(body_mass.inertia);
    const Transform center = CenterOfMassPose(rigid, body_mass.center);
    pose = {center.position, center.orientation * axes.rotation};
    shapes_frame = {axes.rotation.conjugate() * -body_mass.center, axes.rotation.conjugate()};
    mass = body_mass.mass;
    inertia = axes.moments;
  }

  // One primitive when nothing moves it; else a compound, even of one child.
  const bool identity = shapes_frame.position.isZero(0.0) &&
                        shapes_frame.orientation.coeffs() == Quat::Identity().coeffs();
  btCollisionShape* shape = rigid.children.empty() && identity ? Primitive(rigid.shape)
                                                               : Compound(children, shapes_frame);
  placed_[desc.id] = {bodies_.size(), shapes_frame};
  AddRigidBody(rigid, shape, pose, mass, inertia);
  if (rigid.children.empty() && rigid.shape.type == ShapeType::kMesh) {
    btRigidBody* body = bodies_.back().get();
    body->setCollisionFlags(body->getCollisionFlags() |
                            btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK);
  }
  return absl::OkStatus();
}

absl::Status BulletScene::AddJoint(const ConstraintDesc& desc) {
  const JointParams& p = desc.params;
  const auto refuse = [&desc](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("bullet peer: constraint ", desc.id, ": ", why));
  };
  if (desc.rod || desc.pearl || desc.soft || desc.strand) return refuse("only joints are mapped");
  if (p.kind != JointKind::kBall && p.kind != JointKind::kHinge && p.kind != JointKind::kFixed) {
    return refuse("only ball, hinge and fixed joints are mapped");
  }
  if (p.limited || p.axis_drive.on() || p.angular_drive.on() || p.linear_drive.on() ||
      std::isfinite(p.break_force) || std::isfinite(p.break_torque)) {
    return refuse("limits, drives and breaking are not mapped");
  }
  // Each side's frame in its Bullet body's frame; the world is Bullet's fixed body, whose
  // frame is the world's.
  struct Side {
    btRigidBody* body = nullptr;
    Transform frame;
  };
  const auto side = [this](const std::string& id, const Transform& frame) -> std::optional<Side> {
    if (id.empty()) return Side{&btTypedConstraint::getFixedBody(), frame};
    auto it = placed_.find(id);
    if (it == placed_.end() || !it->second.frame) return std::nullopt;
    return Side{bodies_[it->second.index].get(), *it->second.frame * frame};
  };
  const std::optional<Side> a = side(desc.body_a, desc.frame_a);
  const std::optional<Side> b = side(desc.body_b, desc.frame_b);
  if (!a || !b || desc.body_a.empty()) return refuse("its bodies must be non-plane bodies");
  std::unique_ptr<btTypedConstraint> joint;
  switch (p.kind) {
    case JointKind::kBall:
      joint = std::make_unique<btPoint2PointConstraint>(
          *a->body, *b->body, ToBullet(a->frame.position), ToBullet(b->frame.position));
      break;
    case JointKind::kHinge: {
      // Our hinge turns about its frames' X axes, Bullet's about their Z axes: a quarter
      // turn about Y takes Z onto X.
      const Transform z_to_x{Vec3::Zero(),
                             Quat(Eigen::AngleAxisd(0.5 * std::numbers::pi, Vec3::UnitY()))};
      joint = std::make_unique<btHingeConstraint>(*a->body, *b->body, ToBullet(a->frame * z_to_x),
                                                  ToBullet(b->frame * z_to_x), false);
      break;
    }
    default:
      joint = std::make_unique<btFixedConstraint>(*a->body, *b->body, ToBullet(a->frame),
                                                  ToBullet(b->frame));
      break;
  }
  world_->addConstraint(joint.get(), !desc.collide_connected);
  joints_.push_back(std::move(joint));
  return absl::OkStatus();
}

int BulletScene::Contacts() const {
  // Sum of the persistent manifolds' points after the last step.
  btDispatcher* dispatcher = world_->getDispatcher();
  int contacts = 0;
  for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
    contacts += dispatcher->getManifoldByIndexInternal(i)->getNumContacts();
  }
  return contacts;
}

std::string BulletScene::Notes() const {
  return absl::StrCat("peer iterations=", iterations_,
                      " sleeping=", allow_sleeping_ ? "on" : "off");
}

}  // namespace

std::string BulletPeerName() {
  const int version = btGetVersion();  // e.g. 324
  return "bullet-" + std::to_string(version / 100) + "." + std::to_string(version % 100);
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeBulletScene(const SceneDesc& scene,
                                                              const BulletSceneOptions& options) {
  // Settings the peer needs in range; SceneFromProto already checks scenes from files.
  if (!(scene.settings.rate_hz > 0.0) || scene.settings.solver.max_iterations <= 0) {
    return absl::InvalidArgumentError("bullet peer: rate_hz and max_iterations must be > 0");
  }
  // One Bullet body per scene body, in scene order, then the joints.
  auto peer = std::make_unique<BulletScene>(scene.settings, options);
  for (const BodyDesc& body : scene.bodies) {
    absl::Status added = peer->AddBody(body);
    if (!added.ok()) return added;
  }
  for (const ConstraintDesc& joint : scene.constraints) {
    absl::Status added = peer->AddJoint(joint);
    if (!added.ok()) return added;
  }
  return peer;
}

}  // namespace ligature::bench
