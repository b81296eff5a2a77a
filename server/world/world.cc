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
  } while (body_ids_.contains(id) || constraints_.Contains(id));
  return id;
}

absl::StatusOr<std::string> World::AddBody(const BodyDesc& desc) {
  if (bodies_.size() >= limits_.max_bodies) {
    return absl::ResourceExhaustedError(
        absl::StrCat("world ", name_, " holds the maximum of ", limits_.max_bodies, " bodies"));
  }
  BodyDesc d = desc;
  if (d.id.empty()) d.id = NextId("body-");
  if (body_ids_.contains(d.id)) {
    return absl::AlreadyExistsError(absl::StrCat("body ", d.id, " already exists"));
  }
  body_ids_[d.id] = bodies_.Add(d);
  return d.id;
}

absl::Status World::UpdateBody(const std::string& id, const BodyUpdate& u) {
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  const uint32_t i = bodies_.Index(it->second);
  if (u.kind) bodies_.SetKind(i, *u.kind);
  if (u.material) bodies_.SetMaterial(i, *u.material);
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
  return absl::OkStatus();
}

absl::Status World::RemoveBody(const std::string& id) {
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  const BodyHandle handle = it->second;
  for (std::string& c : constraints_.RemoveAttachedTo(handle)) {
    removed_constraints_.push_back(std::move(c));
  }
  bodies_.Remove(handle);
  body_ids_.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<std::string> World::AddConstraint(const ConstraintDesc& desc) {
  if (constraints_.size() >= limits_.max_constraints) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "world ", name_, " holds the maximum of ", limits_.max_constraints, " constraints"));
  }
  Joint j;
  j.id = desc.id.empty() ? NextId("constraint-") : desc.id;
  if (constraints_.Contains(j.id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", j.id, " already exists"));
  }
  j.params = desc.params;
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
  constraints_.Add(std::move(j));
  return id;
}

absl::Status World::RemoveConstraint(const std::string& id) {
  if (!constraints_.Contains(id)) {
    return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
  }
  constraints_.Remove(id);
  return absl::OkStatus();
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
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return absl::NotFoundError(absl::StrCat("body ", id, " not found"));
  return bodies_.Describe(bodies_.Index(it->second));
}

SceneDesc World::Export() const {
  SceneDesc scene;
  scene.settings = settings_;
  for (int i = 0; i < bodies_.size(); ++i) scene.bodies.push_back(bodies_.Describe(i));
  // Frames back from the centre-of-mass frames to the bodies' frames.
  auto detach = [&](BodyHandle handle, const Transform& local, std::string* body,
                    Transform* frame) {
    *frame = local;
    if (handle.IsNull()) return;
    const uint32_t i = bodies_.Index(handle);
    *body = bodies_.id[i];
    frame->position = bodies_.FromCenterFrame(i, local.position);
  };
  for (const Joint& j : constraints_.joints()) {
    ConstraintDesc d;
    d.id = j.id;
    d.params = j.params;
    detach(j.body_a, j.frame_a, &d.body_a, &d.frame_a);
    detach(j.body_b, j.frame_b, &d.body_b, &d.frame_b);
    scene.constraints.push_back(std::move(d));
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
  f.bodies.reserve(bodies_.size());
  for (int i = 0; i < bodies_.size(); ++i) {
    f.bodies.push_back({bodies_.id[i], bodies_.BodyPose(i), bodies_.linear_velocity[i],
                        bodies_.angular_velocity[i]});
  }
  return f;
}

}  // namespace ligature
