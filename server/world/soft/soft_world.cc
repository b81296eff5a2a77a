#include "server/world/soft/soft_world.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/collision/narrowphase.h"

namespace ligature {
namespace {

absl::Status InvalidSoftField(const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

// How many further vertices each point-to-element kind needs.
int ElementVertices(LocalConstraintType type) {
  switch (type) {
    case LocalConstraintType::kPointToLine: return 2;
    case LocalConstraintType::kPointToTriangle: return 3;
    case LocalConstraintType::kPointToTetrahedron: return 4;
    default: return 0;
  }
}

// A state that is not finite, or has run off beyond 1e6 m (an explicit integrator past its
// stability limit), is a failed step.
bool Finite(const std::vector<Vec3>& xs) {
  return std::all_of(xs.begin(), xs.end(), [](const Vec3& x) {
    return x.allFinite() && x.cwiseAbs().maxCoeff() < 1e6;
  });
}

}  // namespace

absl::Status SoftWorld::AddBody(const SoftBodyDesc& desc) {
  if (index_.contains(desc.id)) {
    return absl::AlreadyExistsError(absl::StrCat("soft body ", desc.id, " already exists"));
  }
  Body body;
  body.desc = desc;
  const int n = static_cast<int>(desc.mesh.vertices.size());
  for (size_t i = 0; i < desc.fixed.size(); ++i) {
    if (desc.fixed[i] < 0 || desc.fixed[i] >= n) {
      return InvalidSoftField(absl::StrCat("fixed_vertices[", i, "]"),
                     absl::StrCat("must be a vertex index in [0, ", n, ")"));
    }
  }
  if (!std::isfinite(desc.friction) || desc.friction < 0.0) {
    return InvalidSoftField("friction", "must be >= 0");
  }
  if (desc.cutting) {
    if (absl::Status s = ValidateCuttingParams(*desc.cutting); !s.ok()) {
      return InvalidSoftField("cutting", std::string(s.message()));
    }
  }
  if (desc.model == SoftModelKind::kMassPoint) {
    absl::StatusOr<MassPointModel> model =
        MassPointModel::FromTetMesh(desc.mesh, desc.mass_point, desc.fixed);
    if (!model.ok()) return InvalidSoftField("mesh", std::string(model.status().message()));
    body.mass_point = *std::move(model);
    body.mass_point_state = RestState(*body.mass_point);
    body.constraints = LocalConstraintSet(body.mass_point->points());
    // Held vertices are pinned by the model; no local constraint may take them.
    for (const int v : desc.fixed) {
      if (!body.vertex_owner.emplace(v, "fixed_vertices").second) {
        return InvalidSoftField("fixed_vertices", "a vertex is listed twice");
      }
    }
  } else {
    if (absl::Status s = ValidateFemMaterial(desc.fem); !s.ok()) {
      return InvalidSoftField("material", std::string(s.message()));
    }
    if (desc.model == SoftModelKind::kCorotational) {
      absl::StatusOr<CorotationalModel> model =
          CorotationalModel::Make(desc.mesh, desc.fem, desc.fixed);
      if (!model.ok()) return InvalidSoftField("mesh", std::string(model.status().message()));
      body.fem = *std::move(model);
    } else {
      absl::StatusOr<StVKModel> model = StVKModel::Make(desc.mesh, desc.fem, desc.fixed);
      if (!model.ok()) return InvalidSoftField("mesh", std::string(model.status().message()));
      body.stvk = *std::move(model);
    }
    body.fem_state = RestFemState(desc.mesh);
  }
  body.surface = ExtractBoundary(desc.mesh);
  body.surface_vertices = SurfaceVertices(body.surface);
  index_[desc.id] = static_cast<int>(bodies_.size());
  bodies_.push_back(std::move(body));
  return absl::OkStatus();
}

std::vector<std::string> SoftWorld::RemoveBody(const std::string& id) {
  std::vector<std::string> removed;
  auto it = index_.find(id);
  if (it == index_.end()) return removed;
  std::erase_if(constraints_, [&](const SoftConstraintDesc& c) {
    if (c.body != id) return false;
    removed.push_back(c.id);
    constraint_ids_.erase(c.id);
    return true;
  });
  absl::erase_if(stroke_anchor_, [&](const auto& entry) { return entry.first.first == id; });
  bodies_.erase(bodies_.begin() + it->second);
  index_.clear();
  for (size_t i = 0; i < bodies_.size(); ++i) index_[bodies_[i].desc.id] = static_cast<int>(i);
  return removed;
}

absl::Status SoftWorld::AddConstraint(const SoftConstraintDesc& desc) {
  if (constraint_ids_.contains(desc.id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", desc.id, " already exists"));
  }
  auto it = index_.find(desc.body);
  if (it == index_.end()) return absl::NotFoundError(absl::StrCat("body: no soft body ", desc.body));
  Body& body = bodies_[it->second];
  if (!body.mass_point) {
    return absl::FailedPreconditionError(absl::StrCat(
        "body: ", desc.body, " is an FEM body; local constraints need the mass-point model "
        "(hold FEM vertices with fixed_vertices)"));
  }
  const int n = body.mass_point->points();
  for (size_t i = 0; i < desc.vertices.size(); ++i) {
    if (desc.vertices[i] < 0 || desc.vertices[i] >= n) {
      return InvalidSoftField(absl::StrCat("vertices[", i, "]"),
                     absl::StrCat("must be a vertex index in [0, ", n, ")"));
    }
  }
  for (size_t i = 0; i < desc.vertices.size(); ++i) {
    auto owner = body.vertex_owner.find(desc.vertices[i]);
    if (owner != body.vertex_owner.end()) {
      return InvalidSoftField(absl::StrCat("vertices[", i, "]"),
                     absl::StrCat("already in ", owner->second,
                                  " (soft constraints must not share vertices)"));
    }
  }
  if (!desc.goal.allFinite()) return InvalidSoftField("goal", "not finite");
  if (desc.self_assembly_steps < 0) return InvalidSoftField("self_assembly_steps", "must be >= 0");
  const size_t needed = 1 + ElementVertices(desc.type);
  const bool many = desc.type == LocalConstraintType::kPointsToPoint;
  if (many ? desc.vertices.size() < 2 : desc.vertices.size() != needed) {
    return InvalidSoftField("vertices", many ? "points-to-point needs at least two vertices"
                                    : absl::StrCat("this kind needs ", needed, " vertices"));
  }
  const std::vector<int>& v = desc.vertices;
  absl::StatusOr<int> added = absl::InternalError("unknown constraint kind");
  switch (desc.type) {
    case LocalConstraintType::kNail: added = body.constraints.AddNail(v[0], desc.goal); break;
    case LocalConstraintType::kPointsToPoint: added = body.constraints.AddPointsToPoint(v); break;
    case LocalConstraintType::kPointToLine:
      added = body.constraints.AddPointToLine(v[0], v[1], v[2]);
      break;
    case LocalConstraintType::kPointToTriangle:
      added = body.constraints.AddPointToTriangle(v[0], v[1], v[2], v[3]);
      break;
    case LocalConstraintType::kPointToTetrahedron:
      added = body.constraints.AddPointToTetrahedron(v[0], v[1], v[2], v[3], v[4]);
      break;
    case LocalConstraintType::kPointToSurface:
      added = body.constraints.AddPointToSurface(v[0], body.surface);
      break;
  }
  if (!added.ok()) return InvalidSoftField("vertices", std::string(added.status().message()));
  if (desc.self_assembly_steps > 0) {
    (void)body.constraints.SetSelfAssembly(*added, desc.self_assembly_steps);
  }
  constraint_ids_[desc.id] = {desc.body, *added};
  for (const int vertex : desc.vertices) body.vertex_owner[vertex] = desc.id;
  constraints_.push_back(desc);
  return absl::OkStatus();
}

absl::Status SoftWorld::RemoveConstraint(const std::string& id) {
  auto it = constraint_ids_.find(id);
  if (it == constraint_ids_.end()) return absl::NotFoundError(absl::StrCat("no soft constraint ", id));
  // The local constraint set keeps its ids stable: the constraint is switched off.
  auto body = index_.find(it->second.first);
  if (body != index_.end()) {
    Body& b = bodies_[body->second];
    (void)b.constraints.SetEnabled(it->second.second, false);
    absl::erase_if(b.vertex_owner, [&](const auto& entry) { return entry.second == id; });
  }
  constraint_ids_.erase(it);
  std::erase_if(constraints_, [&](const SoftConstraintDesc& c) { return c.id == id; });
  return absl::OkStatus();
}

absl::Status SoftWorld::SetConstraintEnabled(const std::string& id, bool enabled) {
  auto it = constraint_ids_.find(id);
  if (it == constraint_ids_.end()) {
    return absl::NotFoundError(absl::StrCat("no soft constraint ", id));
  }
  auto body = index_.find(it->second.first);
  if (body == index_.end()) return absl::NotFoundError(absl::StrCat("no soft body of ", id));
  return bodies_[body->second].constraints.SetEnabled(it->second.second, enabled);
}

bool SoftWorld::ConstraintEnabled(const std::string& id) const {
  auto it = constraint_ids_.find(id);
  if (it == constraint_ids_.end()) return false;
  auto body = index_.find(it->second.first);
  return body != index_.end() && bodies_[body->second].constraints.enabled(it->second.second);
}

std::vector<std::string> SoftWorld::RemoveFollowing(const std::string& body_id) {
  std::vector<std::string> removed;
  for (const SoftConstraintDesc& c : constraints_) {
    if (c.follow_body == body_id) removed.push_back(c.id);
  }
  for (const std::string& id : removed) (void)RemoveConstraint(id);
  return removed;
}

const SoftWorld::Body* SoftWorld::FindBody(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &bodies_[it->second];
}

void SoftWorld::Step(double time, double h, const Vec3& gravity, const SoftPoseLookup& poses,
                     std::span<const Obstacle> obstacles, std::span<const SoftTool> tools) {
  recovered_ = free_recovered_;
  free_recovered_ = 0;
  pushes_.clear();
  SetFollowingGoals(poses);
  for (Body& body : bodies_) {
    // Moved by StepFreeMotion and the world's solve already (or projected out of the
    // obstacles, from where it was at the start of the tick).
    if (body.stepped) {
      if (body.project && !obstacles.empty()) ResolveContacts(body, h, obstacles, body.start);
      body.stepped = false;
      body.project = false;
      continue;
    }
    const std::vector<Vec3> start = obstacles.empty() ? std::vector<Vec3>() : body.positions();
    if (!StepBody(body, time, h, gravity)) ++recovered_;
    if (!obstacles.empty()) ResolveContacts(body, h, obstacles, start);
  }
  CutWithTools(tools);
}

// Nails that follow a body take its pose's goal for this step.
void SoftWorld::SetFollowingGoals(const SoftPoseLookup& poses) {
  if (!poses) return;
  for (const SoftConstraintDesc& c : constraints_) {
    if (c.follow_body.empty()) continue;
    const std::optional<Transform> pose = poses(c.follow_body);
    if (!pose) continue;
    const auto& [body_id, local] = constraint_ids_.at(c.id);
    (void)bodies_[index_.at(body_id)].constraints.SetNailGoal(local, pose->Apply(c.goal));
  }
}

// One step of a body's own model (a mass-point body with its local constraints). A step
// that fails or turns non-finite leaves the body where it was, at rest: false.
bool SoftWorld::StepBody(Body& body, double time, double h, const Vec3& gravity) {
  if (body.mass_point) {
    const MassPointState before = body.mass_point_state;
    const absl::Status s = StepWithConstraints(body.desc.integrator, *body.mass_point, gravity, h,
                                               time, body.constraints, &body.mass_point_state);
    if (s.ok() && Finite(body.mass_point_state.x) && Finite(body.mass_point_state.v)) return true;
    body.mass_point_state = before;
    std::fill(body.mass_point_state.v.begin(), body.mass_point_state.v.end(), Vec3::Zero());
    return false;
  }
  const FemState before = body.fem_state;
  if (StepFem(body, h, gravity) && Finite(body.fem_state.x) && Finite(body.fem_state.v)) {
    return true;
  }
  body.fem_state = before;
  std::fill(body.fem_state.v.begin(), body.fem_state.v.end(), Vec3::Zero());
  return false;
}

// Every body's free motion for the world's solve: as Step() moves it, without obstacles
// (nails following a body aim at its pose from `poses`); a failed step holds the body at
// rest where it was, and the world's solve then meets it there with its lumped compliance.
void SoftWorld::StepFreeMotion(double time, double h, const Vec3& gravity,
                               const SoftPoseLookup& poses) {
  free_recovered_ = 0;
  SetFollowingGoals(poses);
  for (Body& body : bodies_) {
    body.start = body.positions();
    const bool ok = StepBody(body, time, h, gravity);
    if (!ok) ++free_recovered_;
    body.factorized = ok && body.fem.has_value();
    body.stepped = true;
  }
}

// Corotational bodies take one implicit step; St Venant-Kirchhoff bodies take as many equal
// explicit substeps as keep each below 0.9 of their stable step (at most kMaxSubsteps: past
// that the step may diverge, and is then rolled back).
bool SoftWorld::StepFem(Body& body, double h, const Vec3& gravity) {
  if (body.fem) {
    body.refresh.Tick(*body.fem, h, body.system.get());
    return body.fem->Step(h, gravity, {}, body.system.get(), &body.fem_state).ok();
  }
  constexpr int kMaxSubsteps = 1000;
  // The shortest altitude now, when a tet is flatter than at rest (a scalpel pressing it).
  const StVKModel& model = *body.stvk;
  const std::vector<Vec3>& x = body.fem_state.x;
  double altitude = model.rest().min_altitude;
  for (const auto& tet : model.mesh().tets) {
    const Vec3 a = x[tet[0]], b = x[tet[1]], c = x[tet[2]], d = x[tet[3]];
    const double volume = std::abs((b - a).dot((c - a).cross(d - a))) / 6.0;
    const double area = 0.5 * std::max({(b - a).cross(c - a).norm(), (b - a).cross(d - a).norm(),
                                        (c - a).cross(d - a).norm(), (c - b).cross(d - b).norm()});
    if (area > 0.0) altitude = std::min(altitude, 3.0 * volume / area);
  }
  const double stable = 0.9 * ExplicitStableTimeStep(model.material(), altitude);
  const int substeps =
      stable > 0.0 ? std::clamp(static_cast<int>(std::ceil(h / stable)), 1, kMaxSubsteps) : 1;
  for (int i = 0; i < substeps; ++i) body.stvk->Step(h / substeps, gravity, {}, &body.fem_state);
  return true;
}

// Vertices inside rigid shapes are moved out along the contact normal; their velocity into
// the shape is removed and their sliding slowed by Coulomb friction; held and constrained
// vertices are left alone (their constraints decide where they are). A body that can be cut
// meets a scalpel only at its tip (CutWithTools).
void SoftWorld::ResolveContacts(Body& body, double h, std::span<const Obstacle> obstacles,
                                const std::vector<Vec3>& start) {
  constexpr double kFriction = 0.5;
  constexpr double kProbe = 1e-5;  // m, radius of the sphere that stands for a vertex
  std::vector<Vec3>& x = body.mass_point ? body.mass_point_state.x : body.fem_state.x;
  std::vector<Vec3>& v = body.mass_point ? body.mass_point_state.v : body.fem_state.v;
  const std::vector<double>& mass =
      body.mass_point ? body.mass_point->masses() : body.fem_rest()->mass;
  const Shape probe = Shape::Sphere(kProbe);
  ContactManifold manifold;
  for (size_t i = 0; i < x.size(); ++i) {
    if (body.vertex_owner.contains(static_cast<int>(i))) continue;
    if (body.fem_rest() && body.fem_rest()->fixed[i]) continue;
    bool moved = false;
    for (const Obstacle& o : obstacles) {
      if ((o.blade && body.desc.cutting) || !body.desc.collision.Meets(o.filter)) continue;
      if (!((o.bounds.min.array() <= x[i].array()).all() &&
            (x[i].array() <= o.bounds.max.array()).all())) {
        continue;
      }
      manifold.count = 0;
      Collide(probe, Transform{x[i], Quat::Identity()}, o.shape, o.pose, 0.0, &manifold);
      if (manifold.count == 0) continue;
      const ContactPoint& c = manifold.points[0];
      double depth = c.distance + kProbe;  // of the vertex itself, < 0 inside
      if (!(depth < 0.0)) continue;
      Vec3 n = c.normal;  // from the vertex into the shape
      // A vertex that entered during this step leaves through the face it came in by (its
      // closest feature at the start of the step), not the nearest one: a soft body pressing
      // hard on a thin shape must not be pushed out of its far side.
      manifold.count = 0;
      Collide(probe, Transform{start[i], Quat::Identity()}, o.shape, o.pose, 0.0, &manifold);
      if (manifold.count > 0 && manifold.points[0].distance + kProbe >= 0.0) {
        const ContactPoint& entry = manifold.points[0];
        const Vec3 surface = start[i] + (entry.distance + kProbe) * entry.normal;
        n = entry.normal;
        depth = std::min(0.0, -(x[i] - surface).dot(n));
      }
      x[i] += depth * n;
      moved = true;
      const Vec3 before = v[i];
      const double into = v[i].dot(n);
      if (into > 0.0) {
        Vec3 slide = v[i] - into * n;
        const double speed = slide.norm();
        slide *= speed > 0.0 ? std::max(0.0, 1.0 - kFriction * into / speed) : 0.0;
        v[i] = slide;
      }
      if (o.inv_mass > 0.0) {
        pushes_.push_back({o.body, c.position, mass[i] * (before - v[i]),
                           static_cast<int>(&body - bodies_.data()), static_cast<int>(i)});
      }
    }
    // Verlet reads its velocity from the previous position: keep the two consistent.
    if (moved && body.mass_point && !body.mass_point_state.x_prev.empty()) {
      body.mass_point_state.x_prev[i] = x[i] - h * v[i];
    }
  }
}

SoftWorld::SavedState SoftWorld::Save() const {
  SavedState out;
  for (const Body& body : bodies_) {
    SavedBody& saved = out.bodies.emplace_back();
    if (body.mass_point) {
      saved.x = body.mass_point_state.x;
      saved.v = body.mass_point_state.v;
      saved.x_prev = body.mass_point_state.x_prev;
    } else {
      saved.x = body.fem_state.x;
      saved.v = body.fem_state.v;
      saved.dv = body.fem_state.dv;
      if (body.fem) saved.refresh = body.refresh.Save(*body.system, body.fem->mesh());
    }
    saved.topology_version = body.topology_version;
    saved.damage = body.damage;
  }
  // Sorted, so that equal worlds give equal bytes (the map's order is a hash map's).
  for (const auto& [key, point] : stroke_anchor_) out.anchors.push_back({key.first, key.second, point});
  std::sort(out.anchors.begin(), out.anchors.end(), [](const SavedAnchor& a, const SavedAnchor& b) {
    return std::pair(a.soft_body, a.tool) < std::pair(b.soft_body, b.tool);
  });
  for (const SoftConstraintDesc& desc : constraints_) {
    const auto& [body_id, local] = constraint_ids_.at(desc.id);
    out.constraints.push_back(bodies_[index_.at(body_id)].constraints.SaveSwitches(local));
  }
  return out;
}

void SoftWorld::Restore(SavedState state) {
  for (size_t k = 0; k < bodies_.size(); ++k) {
    Body& body = bodies_[k];
    SavedBody& saved = state.bodies[k];
    if (body.mass_point) {
      body.mass_point_state.x = std::move(saved.x);
      body.mass_point_state.v = std::move(saved.v);
      body.mass_point_state.x_prev = std::move(saved.x_prev);
    } else {
      body.fem_state.x = std::move(saved.x);
      body.fem_state.v = std::move(saved.v);
      body.fem_state.dv = std::move(saved.dv);
      if (body.fem) body.refresh.Restore(saved.refresh, *body.fem, body.system.get());
    }
    if (!saved.damage.empty()) body.damage = std::move(saved.damage);
    body.topology_version = saved.topology_version;
  }
  for (SavedAnchor& a : state.anchors) {
    stroke_anchor_[{std::move(a.soft_body), std::move(a.tool)}] = a.point;
  }
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const auto& [body_id, local] = constraint_ids_.at(constraints_[k].id);
    bodies_[index_.at(body_id)].constraints.RestoreSwitches(local, state.constraints[k]);
  }
}

LocalConstraintType SoftWorld::ConstraintType(int k) const {
  const auto& [body_id, local] = constraint_ids_.at(constraints_[k].id);
  return bodies_[index_.at(body_id)].constraints.type(local);
}

}  // namespace ligature
