// Haptic tools in a world: attaching a session's channel to a tool body, the coupling
// forces the tools take at each tick, and the local models exported after it.

#include "server/world/coupling/haptic_tool_coupling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "server/collision/aabb.h"
#include "server/collision/narrowphase.h"
#include "server/geometry/shape_features.h"
#include "server/haptics/clock.h"
#include "server/haptics/tool_distance.h"

namespace ligature {
namespace {

constexpr double kBaseReach = 0.01;     // m, beyond the contact margin
constexpr double kMaxReach = 0.2;       // m
constexpr int kMaxBufferVertices = 64;  // nearest soft vertices per body
constexpr double kRodSpacing = 0.005;   // m, finest sampling of a rod's centreline
constexpr int kMaxRodSamples = 2001;

// The contact planes of the tool (dense index `tool`) with every other rigid body within
// `reach`: the narrowphase's points, normals turned to push the tool.
void AddContactPlanes(const RigidBodies& bodies, uint32_t tool, double reach, double h,
                      haptics::ToolLocalModel* model) {
  const Transform tool_pose{bodies.position[tool], bodies.orientation[tool]};
  ContactManifold manifold;
  for (int j = 0; j < bodies.size(); ++j) {
    if (static_cast<uint32_t>(j) == tool) continue;
    const Transform pose{bodies.position[j], bodies.orientation[j]};
    for (size_t kt = 0; kt < bodies.shapes[tool].size(); ++kt) {
      const ChildShape& ct = bodies.shapes[tool][kt];
      const CollisionFilter& ft = bodies.ChildFilter(tool, kt);
      const Aabb tb = ComputeAabb(ct.shape, tool_pose * ct.local, reach);
      for (size_t ko = 0; ko < bodies.shapes[j].size(); ++ko) {
        const ChildShape& co = bodies.shapes[j][ko];
        // The tool feels what it collides with: not sensors, nor layers it does not meet.
        const CollisionFilter& fo = bodies.ChildFilter(j, ko);
        if (ft.sensor || fo.sensor || !ft.Meets(fo)) continue;
        const Aabb ob = ComputeAabb(co.shape, pose * co.local, 0.0);
        if ((tb.max.array() < ob.min.array()).any() || (ob.max.array() < tb.min.array()).any()) {
          continue;
        }
        manifold.count = 0;
        Collide(ct.shape, tool_pose * ct.local, co.shape, pose * co.local, reach, &manifold);
        for (int k = 0; k < manifold.count; ++k) {
          const ContactPoint& c = manifold.points[k];
          haptics::ContactPlane& p = model->planes.emplace_back();
          p.normal = -c.normal;  // the narrowphase's normal points from the tool
          p.point = c.position - 0.5 * c.distance * c.normal;
          p.gap = c.distance;
          p.friction = std::sqrt(bodies.material[tool].friction * bodies.material[j].friction);
          p.body = bodies.id[j];
          // A dynamic obstacle yields over one tick by its effective mass at the point.
          if (bodies.IsDynamic(j)) {
            const Mat3 r = bodies.orientation[j].toRotationMatrix();
            const Vec3 rn = (c.position - bodies.position[j]).cross(c.normal);
            const double w =
                bodies.inv_mass[j] + rn.dot(r * bodies.inv_inertia_local[j] * r.transpose() * rn);
            p.compliance = h * h * w;
          }
        }
      }
    }
  }
}

// The contact planes of the tool with a rod within `reach`: the rod's centreline is
// sampled as a polyline; where the gap between the tool and a polyline segment (the
// segment's point nearest the tool's centre, less the rod's radius) has a local minimum
// along the rod, the tool gets a plane there pushing it off the rod. For the haptic steps
// the rod is locally rigid but yields like a mass: a held rod is fixed, a dynamic one
// yields h^2 / m over one tick with m the mass of one control-point span (as a dynamic
// rigid obstacle yields by its effective mass). Rod contacts are frictionless, as the
// world's own rod-rigid contacts are.
void AddRodPlanes(const RodWorld::Rod& rod, const haptics::ToolLocalModel& tool, double reach,
                  double h, std::vector<haptics::ContactPlane>* out) {
  const Transform pose{tool.tool.position, tool.tool.orientation};
  // The tool's bounding sphere, for a quick rejection of far segments.
  double bound = 0.0;
  for (const ChildShape& c : tool.shapes) {
    const Aabb b = ComputeAabb(c.shape, pose * c.local, 0.0);
    bound = std::max({bound, (b.min - pose.position).norm(), (b.max - pose.position).norm()});
  }
  const double radius = rod.model.material().radius;
  const double length = rod.model.length();
  const int samples = std::clamp(static_cast<int>(std::ceil(length / kRodSpacing)) + 1,
                                 2 * rod.model.spline().segments() + 1, kMaxRodSamples);
  std::vector<Vec3> x(samples);
  for (int k = 0; k < samples; ++k) {
    x[k] = rod.state.Position(rod.model.spline().Sample(length * k / (samples - 1)));
  }
  // Per segment: the gap, the nearest point on the tool's surface and its outward normal.
  const int n = samples - 1;
  std::vector<haptics::SurfaceQuery> near(n);
  std::vector<double> gap(n, std::numeric_limits<double>::infinity());
  for (int k = 0; k < n; ++k) {
    const Vec3 d = x[k + 1] - x[k];
    const double len2 = d.squaredNorm();
    const double t = len2 > 0.0 ? std::clamp((pose.position - x[k]).dot(d) / len2, 0.0, 1.0) : 0.0;
    const Vec3 c = x[k] + t * d;
    if ((c - pose.position).norm() > bound + radius + reach) continue;
    near[k] = haptics::ToolDistance(tool.shapes, pose, c);
    gap[k] = near[k].distance - radius;
  }
  const double span_mass = rod.model.mass() / std::max(1, rod.model.control_points() - 1);
  for (int k = 0; k < n; ++k) {
    if (!(gap[k] < reach)) continue;
    // One plane per local minimum of the gap along the rod.
    if ((k > 0 && gap[k - 1] < gap[k]) || (k + 1 < n && gap[k + 1] <= gap[k])) continue;
    haptics::ContactPlane& p = out->emplace_back();
    p.point = near[k].surface;
    p.normal = -near[k].normal;  // the tool's outward normal points at the rod
    p.gap = gap[k];
    p.compliance = rod.desc.kinematic || !(span_mass > 0.0) ? 0.0 : h * h / span_mass;
    p.body = rod.desc.id;
  }
}

// The surface triangles of the soft body that a feature of the tool (an edge or corner of
// a box, a sphere's or capsule's core) lies over or under within `reach` (down to
// kMaxSunkDepth), as the world's faces find them; their vertices' nearness becomes at most
// the feature's distance from the triangle.
std::vector<size_t> FacesUnderTool(const SoftWorld::Body& body, const haptics::ToolLocalModel& tool,
                                   double reach, std::vector<double>* nearness) {
  const std::vector<Vec3>& x = body.positions();
  const Transform pose{tool.tool.position, tool.tool.orientation};
  std::vector<ShapeFeature> features;
  for (const ChildShape& c : tool.shapes) AppendShapeFeatures(c.shape, pose * c.local, &features);
  if (features.empty()) return {};
  Aabb bounds{features[0].a, features[0].a};
  for (const ShapeFeature& f : features) {
    const Vec3 grow = Vec3::Constant(f.radius + reach);
    bounds.min = bounds.min.cwiseMin(f.a - grow).cwiseMin(f.b - grow);
    bounds.max = bounds.max.cwiseMax(f.a + grow).cwiseMax(f.b + grow);
  }
  std::vector<size_t> faces;
  std::array<TriangleFeatureHit, 2> hits;
  const std::vector<std::array<int, 3>>& triangles = body.surface.triangles;
  for (size_t t = 0; t < triangles.size(); ++t) {
    const std::array<int, 3>& tri = triangles[t];
    const Aabb box{x[tri[0]].cwiseMin(x[tri[1]]).cwiseMin(x[tri[2]]),
                   x[tri[0]].cwiseMax(x[tri[1]]).cwiseMax(x[tri[2]])};
    if (!box.Overlaps(bounds)) continue;
    double nearest = std::numeric_limits<double>::infinity();
    for (const ShapeFeature& f : features) {
      const int count =
          FeatureOverTriangle(f, x[tri[0]], x[tri[1]], x[tri[2]], reach, kMaxSunkDepth, &hits);
      for (int k = 0; k < count; ++k) nearest = std::min(nearest, hits[k].distance);
    }
    if (!(nearest < reach)) continue;
    faces.push_back(t);
    for (const int v : tri) (*nearness)[v] = std::min((*nearness)[v], nearest);
  }
  return faces;
}

// A buffer of the soft body's vertices nearest the tool (within `reach` of its surface, and
// those of the surface triangles a feature of the tool lies over within `reach`, nearest
// first), with the compliance that couples them over one tick: the FEM body's implicit
// system (h^2 A^-1 restricted to them); a mass-point body's lumped h^2 / m per vertex. The
// triangles whose vertices are all in the buffer go with it, so that the haptic tool meets
// the faces the world's tool meets.
//
// The vertices the tool pressed on during the tick sit deflected by that force: the buffer
// holds where they would be without it, x - C g, so that the haptic solve, pressing again,
// finds them where they are and the force that holds them there; and where they are, x,
// their anchors on the tool, so that friction holds them there sideways as the world's
// did. g is spread over the vertices as their velocities' losses into the tool were, and
// its total is `press`, what the tool pressed with (its coupling force and weight: the
// tool's balance at rest), since the vertices' projection out of the tool moves them
// without counting as momentum.
void AddBuffer(const SoftWorld::Body& body, int body_index, uint32_t tool_index,
               double tool_friction, const std::vector<SoftWorld::Push>& pushes,
               const Vec3& press, const haptics::ToolLocalModel& tool, double reach, double h,
               std::vector<haptics::BufferModel>* out) {
  const std::vector<Vec3>& x = body.positions();
  const Transform pose{tool.tool.position, tool.tool.orientation};
  // Per vertex, how near the tool it is (infinity: out of reach).
  std::vector<double> nearness(x.size(), std::numeric_limits<double>::infinity());
  for (size_t v = 0; v < x.size(); ++v) {
    const double d = haptics::ToolDistance(tool.shapes, pose, x[v]).distance;
    if (d < reach) nearness[v] = d;
  }
  const std::vector<size_t> faces = FacesUnderTool(body, tool, reach, &nearness);
  std::vector<std::pair<double, int>> near;
  for (size_t v = 0; v < x.size(); ++v) {
    if (nearness[v] < reach) near.emplace_back(nearness[v], static_cast<int>(v));
  }
  if (near.empty()) return;
  std::sort(near.begin(), near.end());
  if (near.size() > kMaxBufferVertices) near.resize(kMaxBufferVertices);
  haptics::BufferModel& b = out->emplace_back();
  b.body = body.desc.id;
  // The pair's coefficient, combined as in the world's soft contacts.
  b.friction = std::sqrt(body.desc.friction * tool_friction);
  const int n = static_cast<int>(near.size());
  std::vector<int> local(x.size(), -1);
  for (int k = 0; k < n; ++k) {
    b.vertex_indices.push_back(near[k].second);
    b.positions.push_back(x[near[k].second]);
    local[near[k].second] = k;
  }
  const bool assembled = body.fem && body.system && body.system->time_step() > 0.0 &&
                         body.system->rhs().size() == static_cast<long>(3 * x.size());
  if (assembled) {
    // The step's response operator between the buffer's vertices; their columns stay
    // cached while the tool stays near them.
    const double hs = body.system->time_step();
    b.compliance = hs * hs * body.system->InverseBetween(b.vertex_indices);
  } else {
    b.compliance = Eigen::MatrixXd::Zero(3 * n, 3 * n);
    const std::vector<double>& mass = body.masses();
    for (int k = 0; k < n; ++k) {
      const int v = b.vertex_indices[k];
      const double c = body.held(v) || !(mass[v] > 0.0) ? 0.0 : h * h / mass[v];
      b.compliance.block<3, 3>(3 * k, 3 * k) = c * Mat3::Identity();
    }
  }
  Eigen::VectorXd load = Eigen::VectorXd::Zero(3 * n);
  for (const SoftWorld::Push& p : pushes) {
    if (p.body != tool_index || p.soft_body != body_index || local[p.vertex] < 0) continue;
    load.segment<3>(3 * local[p.vertex]) -= p.impulse / h;
  }
  Vec3 total = Vec3::Zero();
  for (int k = 0; k < n; ++k) total += load.segment<3>(3 * k);
  if (total.norm() > 1e-9) {
    const double scale = std::clamp(press.dot(total) / total.squaredNorm(), 0.0, 20.0);
    load *= scale;
  }
  if (!load.isZero()) {
    b.anchors = b.positions;
    const Eigen::VectorXd deflection = b.compliance * load;
    for (int k = 0; k < n; ++k) b.positions[k] -= deflection.segment<3>(3 * k);
  }
  for (const auto& t : body.desc.mesh.tets) {
    const std::array<int, 4> lt = {local[t[0]], local[t[1]], local[t[2]], local[t[3]]};
    if (std::all_of(lt.begin(), lt.end(), [](int i) { return i >= 0; })) b.tets.push_back(lt);
  }
  for (const size_t f : faces) {
    const std::array<int, 3>& t = body.surface.triangles[f];
    const std::array<int, 3> lt = {local[t[0]], local[t[1]], local[t[2]]};
    if (std::all_of(lt.begin(), lt.end(), [](int i) { return i >= 0; })) b.faces.push_back(lt);
  }
}

// The tool's velocity as it moved over the tick. The soft bodies' vertices push the tool
// by impulses taken after its pose moved (SoftWorld::Push), so the body's velocity at the
// end of the tick already holds the tissue's reaction for the next one: a tool resting on
// tissue under a steady press carries h F / m against the press. The buffer model gives
// that reaction again by its contact at haptic rate; left in the velocity it would be
// counted twice, and the haptic tool, restarted from it at every tick, would be kicked off
// the tissue and sink back over the tick (a sawtooth at the world's rate, and a damping
// force on a device held still).
void TakeSoftPushesOut(const RigidBodies& bodies, uint32_t tool,
                       const std::vector<SoftWorld::Push>& pushes, haptics::ToolState* state) {
  const Mat3 r = bodies.orientation[tool].toRotationMatrix();
  const Mat3 inv_inertia = r * bodies.inv_inertia_local[tool] * r.transpose();
  for (const SoftWorld::Push& p : pushes) {
    if (p.body != tool || !p.impulse.allFinite()) continue;
    state->linear_velocity -= bodies.inv_mass[tool] * p.impulse;
    state->angular_velocity -= inv_inertia * (p.point - bodies.position[tool]).cross(p.impulse);
  }
}

}  // namespace

absl::Status HapticToolCoupling::Attach(const WorldView& w, const std::string& world_name,
                                        bool is_other_body, const std::string& body_id,
                                        std::shared_ptr<haptics::ToolChannel> channel) {
  auto it = w.body_ids.find(body_id);
  if (it == w.body_ids.end() || !w.bodies.IsValid(it->second)) {
    if (is_other_body) {
      return absl::FailedPreconditionError(
          absl::StrCat("tool_body_id: ", body_id, " is not a rigid body"));
    }
    return absl::NotFoundError(absl::StrCat("tool_body_id: no body ", body_id, " in ", world_name));
  }
  const uint32_t i = w.bodies.Index(it->second);
  if (!w.bodies.IsDynamic(i) || !(w.bodies.inv_mass[i] > 0.0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("tool_body_id: ", body_id, " must be a dynamic rigid body"));
  }
  auto held = tools_.find(body_id);
  if (held != tools_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tool_body_id: ", body_id, " is held by haptic session ", held->second->session_id()));
  }
  tools_[body_id] = std::move(channel);
  return absl::OkStatus();
}

void HapticToolCoupling::Detach(const std::string& body_id, const haptics::ToolChannel* channel) {
  auto it = tools_.find(body_id);
  if (it != tools_.end() && it->second.get() == channel) tools_.erase(it);
}

// Each tool takes the average of the coupling forces its session computed since the last
// tick: the force joins the external forces, the torque changes the angular velocity.
void HapticToolCoupling::ApplyCouplingForces(const WorldView& w, StepContext& ctx) {
  // Worlds without haptic sessions leave the marks empty (no pass over every body).
  ctx.haptic_tool.clear();
  if (tools_.empty()) return;
  const double h = w.settings.dt();
  RigidBodies& bodies = w.bodies;
  ctx.haptic_tool.assign(bodies.size(), 0);
  for (const auto& [id, channel] : tools_) {
    const haptics::CouplingAverage avg = channel->TakeCoupling();
    auto it = w.body_ids.find(id);
    if (it == w.body_ids.end() || !bodies.IsValid(it->second)) continue;
    const uint32_t i = bodies.Index(it->second);
    ctx.haptic_tool[i] = 1;
    if (avg.duration <= 0.0) continue;
    if (!bodies.IsDynamic(i)) continue;
    ctx.force[i] += avg.force;
    const Mat3 r = bodies.orientation[i].toRotationMatrix();
    bodies.angular_velocity[i] +=
        h * (r * bodies.inv_inertia_local[i] * r.transpose()) * avg.torque;
  }
}

// Every tool's local model for the current state: its rigid state and inertia, its
// contact planes with rigid bodies within reach, and a buffer per soft body within reach.
// A tool whose body is gone gets a last model saying so, and is released.
void HapticToolCoupling::PublishModels(const WorldView& w, const StepContext& ctx, uint64_t tick,
                                       double sim_time) {
  if (tools_.empty()) return;
  const double h = w.settings.dt();
  const double now = haptics::MonotonicSeconds();
  const RigidBodies& bodies = w.bodies;
  std::vector<std::string> gone;
  // What soft vertices pushed rigid bodies with this tick: through the solve's contacts,
  // or by their projection out of the bodies.
  std::vector<SoftWorld::Push> soft_pushes = ctx.soft_solver_pushes;
  soft_pushes.insert(soft_pushes.end(), w.soft.pushes().begin(), w.soft.pushes().end());
  for (const auto& [id, channel] : tools_) {
    auto model = std::make_shared<haptics::ToolLocalModel>();
    model->tick = tick;
    model->sim_time = sim_time;
    model->dt = h;
    model->gravity = w.settings.gravity;
    model->published_at = now;
    auto it = w.body_ids.find(id);
    if (it == w.body_ids.end() || !bodies.IsValid(it->second) ||
        !bodies.IsDynamic(bodies.Index(it->second))) {
      model->tool_removed = true;
      channel->PublishModel(std::move(model));
      gone.push_back(id);
      continue;
    }
    const uint32_t i = bodies.Index(it->second);
    model->tool = {bodies.position[i], bodies.orientation[i], bodies.linear_velocity[i],
                   bodies.angular_velocity[i]};
    TakeSoftPushesOut(bodies, i, w.soft.pushes(), &model->tool);
    model->mass = 1.0 / bodies.inv_mass[i];
    model->inertia_local = bodies.inv_inertia_local[i].inverse();
    model->center_local = bodies.center_local[i];
    // The tool's solid shapes: its sensors touch nothing.
    model->shapes.clear();
    for (size_t k = 0; k < bodies.shapes[i].size(); ++k) {
      if (!bodies.ChildFilter(i, k).sensor) model->shapes.push_back(bodies.shapes[i][k]);
    }
    // What the tool may reach before the next tick.
    const double reach = std::min(kMaxReach, w.settings.contact_margin + kBaseReach +
                                                 2.0 * h * bodies.linear_velocity[i].norm());
    AddContactPlanes(bodies, i, reach, h, model.get());
    // Rods and soft bodies whose layers one of the tool's solid shapes meets.
    auto meets = [&](const CollisionFilter& other) {
      for (size_t k = 0; k < bodies.shapes[i].size(); ++k) {
        const CollisionFilter& own = bodies.ChildFilter(i, k);
        if (!own.sensor && own.Meets(other)) return true;
      }
      return false;
    };
    for (const RodWorld::Rod& rod : w.rods.rods()) {
      if (meets(rod.desc.collision)) AddRodPlanes(rod, *model, reach, h, &model->planes);
    }
    for (size_t k = 0; k < w.soft.bodies().size(); ++k) {
      if (!meets(w.soft.bodies()[k].desc.collision)) continue;
      AddBuffer(w.soft.bodies()[k], static_cast<int>(k), i, w.bodies.material[i].friction,
                soft_pushes,
                channel->display().force + model->mass * w.settings.gravity, *model, reach, h,
                &model->buffers);
    }
    channel->PublishModel(std::move(model));
  }
  for (const std::string& id : gone) tools_.erase(id);
}

std::vector<std::string> HapticToolCoupling::BodyIds() const {
  std::vector<std::string> ids;
  for (const auto& [id, channel] : tools_) ids.push_back(id);
  return ids;
}

void HapticToolCoupling::AddToFrame(Frame* frame) const {
  for (const auto& [id, channel] : tools_) {
    const haptics::ToolDisplay d = channel->display();
    ToolFrameState& t = frame->tools.emplace_back();
    t.body_id = id;
    t.device_id = d.device_id;
    t.device_pose = d.device_pose;
    t.coupling_force = d.force;
    t.coupling_torque = d.torque;
    t.contacts = d.contacts;
    t.watchdog = d.watchdog;
    t.buttons = d.buttons;
  }
  std::sort(frame->tools.begin(), frame->tools.end(),
            [](const ToolFrameState& a, const ToolFrameState& b) { return a.body_id < b.body_id; });
}

}  // namespace ligature
