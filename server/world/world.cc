// World construction, edits and read-out. The step pipeline is in world_step.cc.

#include "server/world/world.h"

#include "absl/strings/str_cat.h"

namespace ligature {

World::World(std::string name, const WorldSettings& settings, const WorldLimits& limits)
    : name_(std::move(name)), settings_(settings), limits_(limits) {}

absl::StatusOr<std::unique_ptr<World>> World::FromScene(std::string name,
                                                        const SceneDesc& scene,
                                                        const WorldLimits& limits) {
  auto world = std::make_unique<World>(std::move(name), scene.settings, limits);
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    auto added = world->AddBody(scene.bodies[i]);
    if (!added.ok()) {
      return absl::Status(added.status().code(),
                          absl::StrCat("bodies[", i, "]: ", added.status().message()));
    }
  }
  for (size_t i = 0; i < scene.constraints.size(); ++i) {
    auto added = world->AddConstraint(scene.constraints[i]);
    if (!added.ok()) {
      return absl::Status(added.status().code(),
                          absl::StrCat("constraints[", i, "]: ", added.status().message()));
    }
  }
  return world;
}

std::string World::NextId(const char* prefix) {
  // Skip ids a client already chose, so generated ids never collide.
  std::string id;
  do {
    id = absl::StrCat(prefix, next_id_++);
  } while (HasBody(id) || HasConstraint(id));
  return id;
}

absl::StatusOr<std::string> World::AddBody(const BodyDesc& desc) {
  ++edits_;
  if (body_count() >= limits_.max_bodies) {
    return absl::ResourceExhaustedError(
        absl::StrCat("world ", name_, " holds the maximum of ", limits_.max_bodies,
                     " bodies (--max_bodies)"));
  }
  BodyDesc d = desc;
  if (d.id.empty()) d.id = NextId("body-");
  if (HasBody(d.id)) {
    return absl::AlreadyExistsError(absl::StrCat("body ", d.id, " already exists"));
  }
  if (const RodDesc* rod_desc = d.rod()) {
    RodDesc rod = *rod_desc;
    rod.id = d.id;
    rod.kinematic = d.kind != BodyKind::kDynamic;
    if (absl::Status s = rods_.AddRod(rod); !s.ok()) return s;
    return d.id;
  }
  if (const SoftBodyDesc* soft_desc = d.soft()) {
    SoftBodyDesc soft = *soft_desc;
    soft.id = d.id;
    if (absl::Status s = soft_.AddBody(soft); !s.ok()) return s;
    return d.id;
  }
  if (d.strand()) return AddStrand(d);
  // What is left is a rigid body, maybe a scalpel.
  body_ids_[d.id] = bodies_.Add(d);
  if (const std::optional<ScalpelDesc>& scalpel = d.rigid()->scalpel) scalpels_[d.id] = *scalpel;
  return d.id;
}

absl::Status World::UpdateBody(const std::string& id, const BodyUpdate& u) {
  ++edits_;
  // A rod, soft body or strand takes new layers and a new mask; nothing else of it changes
  // by an update. What rested on it may now pass through it, so every sleeper wakes.
  const bool rod = rods_.HasRod(id), soft = soft_.HasBody(id), strand = strands_.HasStrand(id);
  if (rod || soft || strand) {
    if (u.position || u.orientation || u.linear_velocity || u.angular_velocity || u.material ||
        u.kind || !u.collision) {
      return absl::FailedPreconditionError(absl::StrCat(
          "body ", id, " is deformable: it moves through its constraints, and only its "
          "collision filter is updated (delete and re-create it to change the rest)"));
    }
    if (u.collision->sensor) {
      return absl::InvalidArgumentError("body.collision.sensor: only a rigid body can be a sensor");
    }
    if (rod) rods_.SetCollision(id, *u.collision);
    if (soft) soft_.SetCollision(id, *u.collision);
    if (strand) strands_.SetCollision(id, *u.collision);
    WakeAll();
    return absl::OkStatus();
  }
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  const uint32_t i = bodies_.Index(it->second);
  if (u.kind == BodyKind::kDynamic && bodies_.shapes[i].front().shape.type == ShapeType::kMesh) {
    return absl::InvalidArgumentError(absl::StrCat(
        "body.kind: body ", id, " is a mesh, which must be BODY_KIND_STATIC or "
        "BODY_KIND_KINEMATIC"));
  }
  // What rested on the body where it was, and what it meets where it goes, wake.
  WakeNear(i);
  if (u.kind) bodies_.SetKind(i, *u.kind);
  if (u.material) bodies_.SetMaterial(i, *u.material);
  if (u.collision) bodies_.collision[i] = *u.collision;
  if (u.position || u.orientation) {
    Transform pose = bodies_.BodyPose(i);
    if (u.position) pose.position = *u.position;
    if (u.orientation) pose.orientation = *u.orientation;
    bodies_.SetBodyPose(i, pose);
  }
  if (bodies_.kind[i] != BodyKind::kStatic) {
    if (u.linear_velocity) bodies_.linear_velocity[i] = *u.linear_velocity;
    if (u.angular_velocity) bodies_.angular_velocity[i] = *u.angular_velocity;
  }
  WakeNear(i);
  return absl::OkStatus();
}

absl::Status World::RemoveBody(const std::string& id) {
  ++edits_;
  // The rod contacts' warm starts name rods and rigid bodies by index, which a removal
  // shifts.
  rod_rigid_.ForgetWarmStart();
  if (rods_.HasRod(id)) {
    for (std::string& c : rods_.RemoveRod(id)) removed_constraints_.push_back(std::move(c));
    return absl::OkStatus();
  }
  if (soft_.HasBody(id)) {
    for (std::string& c : soft_.RemoveBody(id)) removed_constraints_.push_back(std::move(c));
    return absl::OkStatus();
  }
  if (strands_.RemoveStrand(id, &removed_constraints_)) return absl::OkStatus();
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  const BodyHandle handle = it->second;
  // What rested on the body, or hung from it, wakes.
  WakeNear(bodies_.Index(handle));
  for (const Joint& j : constraints_.joints()) {
    if (j.body_a == handle || j.body_b == handle) WakeJointBodies(j);
  }
  for (std::string& c : constraints_.RemoveAttachedTo(handle)) {
    removed_constraints_.push_back(std::move(c));
  }
  for (std::string& c : rods_.RemoveFollowing(id)) removed_constraints_.push_back(std::move(c));
  for (std::string& c : soft_.RemoveFollowing(id)) removed_constraints_.push_back(std::move(c));
  for (std::string& c : strands_.Unfollow(id)) removed_constraints_.push_back(std::move(c));
  bodies_.Remove(handle);
  body_ids_.erase(it);
  scalpels_.erase(id);
  return absl::OkStatus();
}

absl::StatusOr<std::string> World::AddConstraint(const ConstraintDesc& desc) {
  ++edits_;
  if (constraint_count() >= limits_.max_constraints) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "world ", name_, " holds the maximum of ", limits_.max_constraints,
        " constraints (--max_constraints)"));
  }
  if (desc.rod || desc.pearl || desc.soft || desc.strand) return AddDeformableConstraint(desc);
  Joint j;
  j.id = desc.id.empty() ? NextId("constraint-") : desc.id;
  if (HasConstraint(j.id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", j.id, " already exists"));
  }
  j.params = desc.params;
  j.collide_connected = desc.collide_connected;
  // Frames arrive in the bodies' frames (or the world's); joints hold them in the
  // centre-of-mass frames.
  auto attach = [&](const std::string& body, const Transform& frame, const char* field,
                    BodyHandle* handle, Transform* local) -> absl::Status {
    *local = frame;
    if (body.empty()) return absl::OkStatus();
    auto it = body_ids_.find(body);
    if (it == body_ids_.end()) {
      return absl::NotFoundError(absl::StrCat(field, ": body ", body, " not found"));
    }
    *handle = it->second;
    local->position = bodies_.ToCenterFrame(bodies_.Index(it->second), frame.position);
    return absl::OkStatus();
  };
  if (auto s = attach(desc.body_a, desc.frame_a, "body_a", &j.body_a, &j.frame_a); !s.ok()) {
    return s;
  }
  if (auto s = attach(desc.body_b, desc.frame_b, "body_b", &j.body_b, &j.frame_b); !s.ok()) {
    return s;
  }
  if (j.params.kind == JointKind::kCurve ? j.body_b.IsNull() : j.body_a.IsNull()) {
    return absl::InvalidArgumentError("a constraint needs a body");
  }
  if (!j.body_a.IsNull() && j.body_a == j.body_b) {
    return absl::InvalidArgumentError("body_b: must differ from body_a");
  }
  std::string id = j.id;
  WakeJointBodies(j);
  constraints_.Add(std::move(j));
  return id;
}

// A constraint on rods, soft bodies or strands, or a pearl; a followed body must be a rigid
// body of this world.
absl::StatusOr<std::string> World::AddDeformableConstraint(const ConstraintDesc& desc) {
  const std::string id = desc.id.empty() ? NextId("constraint-") : desc.id;
  if (HasConstraint(id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", id, " already exists"));
  }
  if (desc.soft) {
    SoftConstraintDesc soft = *desc.soft;
    soft.id = id;
    if (!soft.follow_body.empty() && !body_ids_.contains(soft.follow_body)) {
      return absl::NotFoundError(
          absl::StrCat("follow_body: no rigid body ", soft.follow_body, " in this world"));
    }
    if (absl::Status s = soft_.AddConstraint(soft); !s.ok()) return s;
    return id;
  }
  if (desc.strand) {
    StrandConstraintDesc strand = *desc.strand;
    strand.id = id;
    if (!strand.follow_body.empty() && !body_ids_.contains(strand.follow_body)) {
      return absl::NotFoundError(
          absl::StrCat("follow_body: no rigid body ", strand.follow_body, " in this world"));
    }
    if (absl::Status s = strands_.AddConstraint(strand); !s.ok()) return s;
    return id;
  }
  if (desc.pearl) {
    PearlDesc pearl = *desc.pearl;
    pearl.id = id;
    if (absl::Status s = rods_.AddPearl(pearl); !s.ok()) return s;
    return id;
  }
  RodConstraintDesc rod = *desc.rod;
  rod.id = id;
  if (!rod.follow_body.empty() && !body_ids_.contains(rod.follow_body)) {
    return absl::NotFoundError(
        absl::StrCat("follow_body: no rigid body ", rod.follow_body, " in this world"));
  }
  if (absl::Status s = rods_.AddConstraint(rod); !s.ok()) return s;
  return id;
}

absl::Status World::RemoveConstraint(const std::string& id) {
  ++edits_;
  if (rods_.HasConstraint(id)) return rods_.RemoveConstraint(id);
  if (rods_.HasPearl(id)) return rods_.RemovePearl(id);
  if (soft_.HasConstraint(id)) return soft_.RemoveConstraint(id);
  if (strands_.HasConstraint(id)) return strands_.RemoveConstraint(id);
  const Joint* joint = constraints_.FindMutable(id);
  if (joint == nullptr) return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
  WakeJointBodies(*joint);
  constraints_.Remove(id);
  return absl::OkStatus();
}

absl::Status World::SetConstraintEnabled(const std::string& id, bool enabled) {
  if (soft_.HasConstraint(id)) {
    ++edits_;
    return soft_.SetConstraintEnabled(id, enabled);
  }
  if (HasConstraint(id)) {
    return absl::FailedPreconditionError(
        absl::StrCat("constraint ", id, ": only soft-body constraints can be switched off"));
  }
  return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
}

// Bodies asleep under other gravity, or under other sleep settings, would not be at rest.
void World::SetSettings(const WorldSettings& settings) {
  if (settings.gravity != settings_.gravity || !(settings.sleep == settings_.sleep)) WakeAll();
  settings_ = settings;
}

absl::Status World::SetDeviceTarget(const std::string& body_id, const Transform& pose) {
  auto it = body_ids_.find(body_id);
  if (it == body_ids_.end()) {
    return absl::NotFoundError(absl::StrCat("body ", body_id, " not found"));
  }
  if (bodies_.kind[bodies_.Index(it->second)] != BodyKind::kKinematic) {
    return absl::FailedPreconditionError(
        absl::StrCat("body ", body_id, " is not kinematic: devices drive kinematic bodies"));
  }
  device_targets_.emplace_back(it->second, pose);
  return absl::OkStatus();
}

absl::StatusOr<BodyDesc> World::GetBody(const std::string& id) const {
  if (const StrandWorld::Strand* strand = strands_.FindStrand(id)) {
    BodyDesc d;
    d.id = id;
    d.body = strand->desc;
    return d;
  }
  if (const SoftWorld::Body* soft = soft_.FindBody(id)) {
    BodyDesc d;
    d.id = id;
    d.body = soft->desc;
    return d;
  }
  if (const RodWorld::Rod* rod = rods_.FindRod(id)) {
    BodyDesc d;
    d.id = id;
    d.kind = rod->desc.kinematic ? BodyKind::kStatic : BodyKind::kDynamic;
    d.body = rod->desc;
    return d;
  }
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  return DescribeRigid(bodies_.Index(it->second));
}

// A rigid body as clients gave it, with its tool role.
BodyDesc World::DescribeRigid(int i) const {
  BodyDesc d = bodies_.Describe(i);
  auto scalpel = scalpels_.find(d.id);
  if (scalpel != scalpels_.end()) d.rigid()->scalpel = scalpel->second;
  return d;
}

// A joint as clients gave it: its frames back from the centre-of-mass frames to the
// bodies' frames.
ConstraintDesc World::DescribeJoint(const Joint& j) const {
  auto detach = [&](BodyHandle handle, const Transform& local, std::string* body,
                    Transform* frame) {
    *frame = local;
    if (handle.IsNull()) return;
    const uint32_t i = bodies_.Index(handle);
    *body = bodies_.id[i];
    frame->position = bodies_.FromCenterFrame(i, local.position);
  };
  ConstraintDesc d;
  d.id = j.id;
  d.params = j.params;
  d.collide_connected = j.collide_connected;
  detach(j.body_a, j.frame_a, &d.body_a, &d.frame_a);
  detach(j.body_b, j.frame_b, &d.body_b, &d.frame_b);
  return d;
}

absl::StatusOr<ConstraintDesc> World::JointDesc(const std::string& id) const {
  const Joint* j = constraints_.Find(id);
  if (j == nullptr) {
    if (HasConstraint(id)) {
      return absl::FailedPreconditionError(
          absl::StrCat("constraint ", id, " is not a joint between rigid bodies"));
    }
    return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
  }
  return DescribeJoint(*j);
}

absl::Status World::UpdateJoint(const std::string& id, const ConstraintDesc& desc, bool edit) {
  if (edit) ++edits_;
  Joint* j = constraints_.FindMutable(id);
  if (j == nullptr) return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
  const ConstraintDesc now = DescribeJoint(*j);
  if (desc.params.kind != j->params.kind || desc.body_a != now.body_a ||
      desc.body_b != now.body_b) {
    return absl::InvalidArgumentError(
        absl::StrCat("constraint ", id, ": an update keeps the joint's kind and bodies"));
  }
  // Frames into the centre-of-mass frames, as AddConstraint takes them; the runtime state
  // (warm starts) stays.
  auto attach = [&](BodyHandle handle, const Transform& frame) {
    Transform local = frame;
    if (!handle.IsNull()) {
      local.position = bodies_.ToCenterFrame(bodies_.Index(handle), frame.position);
    }
    return local;
  };
  j->params = desc.params;
  j->frame_a = attach(j->body_a, desc.frame_a);
  j->frame_b = attach(j->body_b, desc.frame_b);
  // New targets move the joint's bodies.
  WakeJointBodies(*j);
  return absl::OkStatus();
}

SceneDesc World::Export() const {
  SceneDesc scene;
  scene.settings = settings_;
  for (int i = 0; i < bodies_.size(); ++i) scene.bodies.push_back(DescribeRigid(i));
  for (const Joint& j : constraints_.joints()) scene.constraints.push_back(DescribeJoint(j));
  // Rods with their rest shape; rod constraints at their current rod points (keyholes
  // where they have slid to); pearls where they are, at their speed.
  for (const RodWorld::Rod& rod : rods_.rods()) {
    BodyDesc d;
    d.id = rod.desc.id;
    d.kind = rod.desc.kinematic ? BodyKind::kStatic : BodyKind::kDynamic;
    d.body = rod.desc;
    scene.bodies.push_back(std::move(d));
  }
  for (const RodConstraint& c : rods_.constraints()) {
    ConstraintDesc d;
    d.id = c.desc.id;
    d.rod = c.desc;
    d.rod->a.u = c.u_a;
    d.rod->b.u = c.u_b;
    scene.constraints.push_back(std::move(d));
  }
  for (const Pearl& p : rods_.pearls()) {
    ConstraintDesc d;
    d.id = p.desc.id;
    d.pearl = p.desc;
    d.pearl->u = p.u;
    d.pearl->speed = p.speed;
    scene.constraints.push_back(std::move(d));
  }
  // Soft bodies with their rest meshes, and their constraints.
  for (const SoftWorld::Body& body : soft_.bodies()) {
    BodyDesc d;
    d.id = body.desc.id;
    d.body = body.desc;
    scene.bodies.push_back(std::move(d));
  }
  for (const SoftConstraintDesc& c : soft_.constraints()) {
    ConstraintDesc d;
    d.id = c.id;
    d.soft = c;
    scene.constraints.push_back(std::move(d));
  }
  // Strands with their rest curves, and their constraints.
  for (const StrandWorld::Strand& s : strands_.strands()) {
    BodyDesc d;
    d.id = s.desc.id;
    d.body = s.desc;
    scene.bodies.push_back(std::move(d));
  }
  for (const StrandWorld::Strand& s : strands_.strands()) {
    for (const StrandWorld::Constraint& c : s.constraints) {
      ConstraintDesc d;
      d.id = c.desc.id;
      d.strand = c.desc;
      scene.constraints.push_back(std::move(d));
    }
  }
  return scene;
}

Frame World::MakeFrame() const {
  Frame f;
  f.world = name_;
  f.tick = tick_;
  f.sim_time = sim_time_;
  f.stats = stats_;
  f.removed_constraints = tick_removed_constraints_;
  f.broken_joints = tick_broken_joints_;
  f.cuts = soft_.cuts();
  f.bodies.reserve(bodies_.size());
  for (int i = 0; i < bodies_.size(); ++i) {
    BodyState& s = f.bodies.emplace_back();
    s.id = bodies_.id[i];
    s.pose = bodies_.BodyPose(i);
    s.linear_velocity = bodies_.linear_velocity[i];
    s.angular_velocity = bodies_.angular_velocity[i];
    s.sleeping = bodies_.IsAsleep(i);
  }
  AddRodsToFrame(&f);
  AddSoftBodiesToFrame(&f);
  AddStrandsToFrame(&f);
  haptic_tools_.AddToFrame(&f);
  f.divergence = divergence_;
  return f;
}

// Each strand as a body at its base pose, with its points.
void World::AddStrandsToFrame(Frame* f) const {
  for (const StrandWorld::Strand& s : strands_.strands()) {
    BodyState& b = f->bodies.emplace_back();
    b.id = s.desc.id;
    b.pose = s.base_pose;
    b.strand_points = s.points;
    b.strand_parents = s.point_parents;
  }
}

// A strand: the bodies it follows must be rigid bodies of this world; its base starts at
// the followed body's pose times its own.
absl::StatusOr<std::string> World::AddStrand(const BodyDesc& d) {
  StrandBodyDesc strand = *d.strand();
  strand.id = d.id;
  Transform base = strand.pose;
  for (const auto& [body, field] : {std::pair{strand.follow_body, "follow_body"},
                                    {strand.local_dynamics_body, "local_dynamics_body"}}) {
    if (!body.empty() && !body_ids_.contains(body)) {
      return absl::NotFoundError(absl::StrCat(field, ": no rigid body ", body, " in this world"));
    }
  }
  if (!strand.follow_body.empty()) base = Followed(strand.follow_body)->pose * strand.pose;
  if (absl::Status s = strands_.AddStrand(strand, base, settings_.gravity); !s.ok()) return s;
  return d.id;
}

// Each soft body as a body with its vertices and boundary triangles.
void World::AddSoftBodiesToFrame(Frame* f) const {
  for (const SoftWorld::Body& body : soft_.bodies()) {
    BodyState s;
    s.id = body.desc.id;
    s.soft_vertices = body.positions();
    s.topology_version = body.topology_version;
    s.soft_triangles.reserve(3 * body.surface.triangles.size());
    for (const auto& t : body.surface.triangles) {
      s.soft_triangles.insert(s.soft_triangles.end(), t.begin(), t.end());
    }
    if (!s.soft_vertices.empty()) s.pose.position = s.soft_vertices.front();
    f->bodies.push_back(std::move(s));
  }
}

// Each rod as a body with its sampled centreline, the pearls, and the rod solver's figures.
void World::AddRodsToFrame(Frame* f) const {
  for (const RodWorld::Rod& rod : rods_.rods()) {
    BodyState s;
    s.id = rod.desc.id;
    const int samples = std::min(401, 2 * rod.model.spline().segments() + 1);
    for (int k = 0; k < samples; ++k) {
      const SplineSample at = rod.model.spline().Sample(rod.model.length() * k / (samples - 1));
      s.rod_points.push_back(rod.state.Position(at));
      s.rod_twist.push_back(rod.state.Twist(at));
    }
    s.pose.position = s.rod_points.front();
    f->bodies.push_back(std::move(s));
  }
  for (const Pearl& p : rods_.pearls()) {
    const RodWorld::Rod* rod = rods_.FindRod(p.desc.rod);
    f->pearls.push_back(
        {p.desc.id, p.u, rod->state.Position(rod->model.spline().Sample(p.u)), p.speed});
  }
  const RodStepStats& r = rods_.last_stats();
  f->rods = {r.unknowns, r.bandwidth, r.newton_steps, r.max_violation};
}

}  // namespace ligature
