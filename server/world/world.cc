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
  if (u.position) bodies_.position[i] = *u.position;
  if (u.orientation) bodies_.orientation[i] = u.orientation->normalized();
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
  PointConstraint c;
  c.id = desc.id.empty() ? NextId("constraint-") : desc.id;
  if (constraints_.Contains(c.id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", c.id, " already exists"));
  }
  const PointConstraintDesc& p = desc.point;
  auto a = body_ids_.find(p.body_a);
  if (a == body_ids_.end()) {
    return absl::NotFoundError(absl::StrCat("point.body_a: body ", p.body_a, " not found"));
  }
  c.body_a = a->second;
  if (!p.body_b.empty()) {
    auto b = body_ids_.find(p.body_b);
    if (b == body_ids_.end()) {
      return absl::NotFoundError(absl::StrCat("point.body_b: body ", p.body_b, " not found"));
    }
    if (b->second == c.body_a) {
      return absl::InvalidArgumentError("point.body_b: must differ from point.body_a");
    }
    c.body_b = b->second;
  }
  c.anchor_a = p.anchor_a;
  c.anchor_b = p.anchor_b;
  std::string id = c.id;
  constraints_.Add(std::move(c));
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
  for (const PointConstraint& c : constraints_.points()) {
    ConstraintDesc d;
    d.id = c.id;
    d.point.body_a = bodies_.id[bodies_.Index(c.body_a)];
    d.point.anchor_a = c.anchor_a;
    if (!c.body_b.IsNull()) d.point.body_b = bodies_.id[bodies_.Index(c.body_b)];
    d.point.anchor_b = c.anchor_b;
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
    f.bodies.push_back({bodies_.id[i],
                        {bodies_.position[i], bodies_.orientation[i]},
                        bodies_.linear_velocity[i],
                        bodies_.angular_velocity[i]});
  }
  return f;
}

}  // namespace ligature
